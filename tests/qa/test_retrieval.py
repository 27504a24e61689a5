"""Retrieval over the real indexes: access control, live versions only, clarification, query expansion."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group, User
from django.core.exceptions import ValidationError

from documents.models import Chunk
from qa.llm_expansion import KEYWORD_PROMPT, clean_keywords, llm_keywords, parse_keyword_list
from qa.models import Answer, SynonymEntry
from qa.retrieval import search
from qa.services import answer_question
from tests.conftest import PASSWORD
from tests.qa.conftest import (
    DEMO_CORPUS,
    Reply,
    anthropic_message,
    calibrated,
    char_location,
    error_reply,
    text_block,
)

pytestmark = pytest.mark.django_db

# --- access control -------------------------------------------------------------

EVALUATION_TITLE = "人事評価制度 運用ガイド（評価者向け）"
EVALUATION_SENTENCE = "賞与（6月・12月支給）の評価係数: S 1.5、A 1.2、B 1.0、C 0.8、D 0.6"
RESTRICTED_QUERIES = [
    EVALUATION_TITLE,
    EVALUATION_SENTENCE,
    "賞与の評価係数は？",
    "評価",
    "昇格の条件は？",
    "ハロー効果とは",
]


@pytest.fixture
def manager(db) -> User:
    user = User.objects.create_user(username="manager", password=PASSWORD)
    user.groups.add(Group.objects.get_or_create(name="managers")[0])
    return user


def restricted_excerpt() -> str:
    """The title, introduction and sections 4-5 of demo evaluation.md (fewer passages to embed)."""
    text = (DEMO_CORPUS / "evaluation.md").read_text("utf-8")
    intro = text[: text.index("## 1.")]
    return intro + text[text.index("## 4.") : text.index("## 6.")]


@pytest.fixture
def acl_docs(ingest):
    """attendance.md open to everyone, evaluation.md restricted to "managers" (uploaded by ``owner``)."""
    return ingest("attendance.md"), ingest(text=restricted_excerpt(), filename="evaluation.md", groups=["managers"])


def test_restricted_document_is_never_returned_to_an_outsider(acl_docs, outsider):
    _open, restricted = acl_docs
    for mode in ("hybrid", "dense", "keyword"):
        for query in RESTRICTED_QUERIES:
            result = search(user=outsider, query=query, mode=mode)
            assert all(h.document_id != restricted.pk for h in result.hits), (mode, query)
            assert all(h.filename != "evaluation.md" for h in result.hits), (mode, query)
            assert not any("評価係数" in h.text or "評価者研修" in h.text for h in result.hits), (mode, query)
    # Restricting the search to the foreign document gives nothing rather than an error or a leak.
    assert search(user=outsider, query=EVALUATION_TITLE, document_id=restricted.pk).hits == []


def test_restricted_document_is_returned_to_members_and_its_owner(acl_docs, manager, owner):
    _open, restricted = acl_docs
    assert not owner.groups.filter(name="managers").exists()  # the owner sees it as its owner
    for user in (manager, owner):
        for query in (EVALUATION_TITLE, EVALUATION_SENTENCE, "賞与の評価係数は？"):
            hits = search(user=user, query=query).hits
            assert hits and hits[0].document_id == restricted.pk, (user, query)
        verbatim = search(user=user, query=EVALUATION_SENTENCE).hits
        assert any(EVALUATION_SENTENCE in h.text for h in verbatim)


def test_answers_cite_the_restricted_document_for_members_only(acl_docs, outsider, manager):
    _open, restricted = acl_docs
    for question in ("賞与の評価係数は？", "評価者研修は何年ごとに更新しますか？", EVALUATION_SENTENCE):
        answer = answer_question(user=outsider, text=question).answer
        assert not answer.citations.filter(document_id=restricted.pk).exists(), question
        assert all(c.filename != "evaluation.md" for c in answer.citations.all()), question
        assert all(h["document_id"] != restricted.pk for h in answer.retrieved), question
        assert "1.5" not in answer.answer_text and "2年ごと" not in answer.answer_text, question

    member_answer = answer_question(user=manager, text="評価者研修は何年ごとに更新しますか？").answer
    assert member_answer.response_type == Answer.ResponseType.ANSWER
    assert member_answer.citations.filter(document_id=restricted.pk).exists()


def test_asking_about_a_foreign_document_is_refused(acl_docs, outsider):
    _open, restricted = acl_docs
    with pytest.raises(ValidationError) as excinfo:
        answer_question(user=outsider, text="賞与の評価係数は？", document=restricted)
    assert "document" in excinfo.value.message_dict
    assert not Answer.objects.filter(user=outsider).exists()


# --- only the live version ------------------------------------------------------

ALLOWANCE_V1 = "# 住宅手当規程\n\n## 支給額\n住宅手当は月額15,000円を支給します。\n\n## 申請\n申請は人事部の総務窓口で受け付けます。\n"
ALLOWANCE_V2 = (
    "# 住宅手当規程\n\n## 支給額\n住宅手当は月額28,000円を支給します。\n\n## 申請\n申請は人事システムから行います。\n"
)


@pytest.fixture
def replaced_document(ingest):
    """housing.md uploaded, then replaced by a version with a different amount; returns (document, old chunk ids)."""
    document = ingest(text=ALLOWANCE_V1, filename="housing.md")
    old_version_id = document.live_version_id
    old_chunks = set(Chunk.objects.filter(version_id=old_version_id).values_list("pk", flat=True))
    assert old_chunks
    document = ingest(text=ALLOWANCE_V2, filename="housing.md", document=document)
    assert document.live_version_id != old_version_id
    return document, old_chunks


def test_only_the_live_version_is_searchable(replaced_document, employee):
    document, old_chunks = replaced_document
    for mode in ("hybrid", "dense", "keyword"):
        for query in ("住宅手当はいくらですか？", "住宅手当は月額15,000円を支給します。", "総務窓口"):
            hits = search(user=employee, query=query, mode=mode).hits
            assert all(h.version_id == document.live_version_id for h in hits), (mode, query)
            assert not {h.chunk_id for h in hits} & old_chunks, (mode, query)
            assert not any("15,000円" in h.text or "総務窓口" in h.text for h in hits), (mode, query)
        new_fact = search(user=employee, query="住宅手当はいくらですか？", mode=mode).hits
        assert any("28,000円" in h.text for h in new_fact), mode


def test_the_answer_cites_the_new_version(replaced_document, employee):
    document, old_chunks = replaced_document
    answer = answer_question(user=employee, text="住宅手当は月額いくらですか？").answer
    assert answer.response_type == Answer.ResponseType.ANSWER
    assert "28,000円" in answer.answer_text and "15,000" not in answer.answer_text
    citations = list(answer.citations.all())
    assert citations and all(c.document_id == document.pk and c.chunk_id not in old_chunks for c in citations)
    assert any("28,000円" in c.cited_text for c in citations)


# --- clarification ----------------------------------------------------------------

REMOTE_HQ = (
    "# 在宅勤務規程（本社）\n\n## 在宅勤務の申請\n在宅勤務をする場合は、前日の17時までに上長へ申請してください。"
    "申請は勤怠システムから行います。\n"
)
REMOTE_FACTORY = (
    "# 在宅勤務規程（工場）\n\n## 在宅勤務の申請\n在宅勤務をする場合は、3営業日前までに工場長へ申請してください。"
    "申請は紙の申請書で行います。\n"
)
# Short: a question this short is asked back when its top two documents tie (qa.retrieval.clarification_options).
AMBIGUOUS = "在宅勤務の申請はいつまで？"


@pytest.fixture
def overlapping_docs(ingest, settings):
    settings.RAG_CLARIFY_GAP = 0.5
    return ingest(text=REMOTE_HQ, filename="remote_hq.md"), ingest(text=REMOTE_FACTORY, filename="remote_factory.md")


def test_ambiguous_question_asks_which_document_without_calling_the_provider(
    overlapping_docs, employee, anthropic_server
):
    hq, factory = overlapping_docs
    answer = answer_question(user=employee, text=AMBIGUOUS).answer

    assert answer.response_type == Answer.ResponseType.CLARIFICATION
    option_docs = [o["document_id"] for o in answer.clarification["options"]]
    assert len(set(option_docs)) == len(option_docs) >= 2
    assert {hq.pk, factory.pk} <= set(option_docs)
    assert {o["filename"] for o in answer.clarification["options"]} >= {"remote_hq.md", "remote_factory.md"}
    assert anthropic_server.requests == []  # no provider call at all
    assert not answer.citations.exists()


def test_choosing_an_option_answers_from_that_document_only(overlapping_docs, employee, anthropic_server):
    hq, factory = overlapping_docs
    first = answer_question(user=employee, text=AMBIGUOUS).answer
    assert first.response_type == Answer.ResponseType.CLARIFICATION
    quote = "3営業日前までに工場長へ申請してください。"
    anthropic_server.script(
        Reply(body=anthropic_message(text_block("在宅勤務は" + quote, char_location(quote, 0, 0, 0))))
    )

    chosen = answer_question(user=employee, text=AMBIGUOUS, conversation=first.conversation, document=factory).answer

    assert chosen.response_type == Answer.ResponseType.ANSWER
    [request] = anthropic_server.requests
    documents = [b for b in request.body["messages"][-1]["content"] if b["type"] == "document"]
    assert documents and all(d["title"].startswith("remote_factory.md") for d in documents)
    assert all("本社" not in d["source"]["data"] for d in documents)
    assert {h["document_id"] for h in chosen.retrieved} == {factory.pk}
    [citation] = chosen.citations.all()
    assert citation.document_id == factory.pk and citation.quote_verified
    assert chosen.restricted_document_id == factory.pk


@pytest.mark.parametrize("pick", [0, 1])
def test_re_asking_restricted_never_loops_back_to_clarification(overlapping_docs, employee, pick):
    first = answer_question(user=employee, text=AMBIGUOUS).answer
    assert first.response_type == Answer.ResponseType.CLARIFICATION
    chosen_doc = overlapping_docs[pick]
    for _ in range(2):  # asking again, still restricted, still answers
        again = answer_question(
            user=employee, text=AMBIGUOUS, conversation=first.conversation, document=chosen_doc
        ).answer
        assert again.response_type == Answer.ResponseType.ANSWER
        citations = list(again.citations.all())
        assert citations and all(c.document_id == chosen_doc.pk for c in citations)
        assert all(h["document_id"] == chosen_doc.pk for h in again.retrieved)


def test_no_clarification_without_a_gap(ingest, employee, settings):
    settings.RAG_CLARIFY_GAP = 0.0
    ingest(text=REMOTE_HQ, filename="remote_hq.md")
    ingest(text=REMOTE_FACTORY, filename="remote_factory.md")
    assert answer_question(user=employee, text=AMBIGUOUS).answer.response_type == Answer.ResponseType.ANSWER


def test_a_longer_question_is_answered_even_when_its_documents_tie(overlapping_docs, employee):
    answer = answer_question(user=employee, text="在宅勤務の申請はいつまでに行う必要がありますか？").answer
    assert answer.response_type == Answer.ResponseType.ANSWER


OTHER_RULES = (
    "# 出張規程\n\n## 出張の申請\n出張する場合は、出発の5日前までに上長へ申請してください。宿泊費は1泊12,000円までです。\n",
    "# 休暇規程\n\n## 慶弔休暇\n本人が結婚するときは5日の特別休暇を取得できます。申請は人事部へ行います。\n",
    "# 経費精算規程\n\n## 精算の期限\n立替えた経費は、支払日から1ヶ月以内に精算してください。領収書を添付します。\n",
)


def test_documents_that_tie_around_a_subject_neither_names_are_not_offered(overlapping_docs, ingest, employee):
    """「在宅勤務の通信費は？」: neither remote-work rule writes 通信費. They tie on 在宅勤務 as they do for
    「在宅勤務の申請はいつまで？」, but offering them would offer documents that do not say: not found."""
    for i, text in enumerate(OTHER_RULES):
        ingest(text=text, filename=f"rules_{i}.md")
    # As on a handbook whose everyday off-topic questions came as close to its sentences as these do.
    calibrated(unknown_word_sentence=0.95)
    assert answer_question(user=employee, text=AMBIGUOUS).answer.response_type == Answer.ResponseType.CLARIFICATION

    answer = answer_question(user=employee, text="在宅勤務の通信費は？").answer

    assert answer.response_type == Answer.ResponseType.NOT_FOUND, answer.usage["decision"]
    assert answer.usage["decision"]["reasons"] == ["tied_without_subject"]
    assert not answer.clarification and not answer.citations.exists()


# --- asking back and abstaining with the demo documents ----------------------------------


@pytest.fixture
def limits(ingest):
    """Three demo documents that each state a 上限 of a different kind (lodging, lodging again, repairs)."""
    return [ingest(name) for name in ("business_travel.md", "expense.md", "equipment.md")]


def test_a_generic_question_asks_which_document_is_meant(limits, employee):
    answer = answer_question(user=employee, text="上限はいくら？").answer

    assert answer.response_type == Answer.ResponseType.CLARIFICATION
    options = answer.clarification["options"]
    assert len(options) == len({o["document_id"] for o in options}) >= 2
    assert {o["filename"] for o in options} <= {"business_travel.md", "expense.md", "equipment.md"}
    assert answer.provider == "" and not answer.citations.exists()


def test_a_question_that_names_its_topic_is_answered(limits, employee):
    answer = answer_question(user=employee, text="出張の宿泊費の上限はいくら？").answer

    assert answer.response_type == Answer.ResponseType.ANSWER
    assert "15,000円" in answer.answer_text
    assert answer.citations.filter(filename__in=["business_travel.md", "expense.md"]).exists()


@pytest.mark.parametrize("question", ["今日の天気は？", "明日の東京の天気は？"])
def test_an_off_topic_question_is_not_found_without_asking_back(limits, employee, question):
    answer = answer_question(user=employee, text=question).answer

    assert answer.response_type == Answer.ResponseType.NOT_FOUND
    assert answer.provider == "" and not answer.citations.exists()
    assert answer.retrieved  # what was considered stays for a reviewer


# --- query expansion ------------------------------------------------------------


def test_dictionary_expansion_is_reported(ingest, employee, demo_glossary):
    ingest("attendance.md")
    result = search(user=employee, query="有給は何日もらえる？")
    assert "有給休暇" in result.added_keywords
    assert "有給休暇" in result.expanded_query and result.expanded_query.startswith("有給は何日もらえる？")
    assert result.hits[0].section.endswith("有給休暇")

    answer = answer_question(user=employee, text="有給は何日もらえる？").answer
    assert "有給休暇" in answer.added_keywords and "有給休暇" in answer.expanded_query


def test_a_dictionary_entry_edited_by_a_reviewer_takes_effect(ingest, employee):
    ingest("attendance.md")
    assert "勤怠くん" not in search(user=employee, query="申請ツールは？").added_keywords
    SynonymEntry.objects.create(term="申請ツール", expansions="勤怠くん、社内システム")
    result = search(user=employee, query="申請ツールは？")
    assert result.added_keywords == ["勤怠くん", "社内システム"]
    assert "勤怠くん" in result.hits[0].text


def test_llm_expansion_failure_falls_back_to_the_dictionary(ingest, employee, demo_glossary, anthropic_server):
    ingest("attendance.md")
    anthropic_server.script(error_reply(500))
    result = search(user=employee, query="有給は何日もらえる？", llm_expansion=llm_keywords)

    assert len(anthropic_server.requests) == 1  # asked once (retries 0), failed
    assert result.added_keywords == ["有給休暇", "年次有給休暇", "年休"]
    assert result.hits and result.hits[0].section.endswith("有給休暇")


def test_llm_keywords_are_added_to_the_expansion(ingest, employee, demo_glossary, anthropic_server):
    ingest("attendance.md")
    anthropic_server.script(
        Reply(body=anthropic_message(text_block('```json\n["付与日数", "勤怠くん", "有給休暇"]\n```')))
    )
    result = search(user=employee, query="有給は何日もらえる？", llm_expansion=llm_keywords)

    assert result.added_keywords[:3] == ["有給休暇", "年次有給休暇", "年休"]
    assert "付与日数" in result.added_keywords and "勤怠くん" in result.added_keywords
    assert result.added_keywords.count("有給休暇") == 1
    assert "付与日数" in result.expanded_query
    [request] = anthropic_server.requests
    assert request.body["system"] == KEYWORD_PROMPT
    assert request.body["messages"] == [{"role": "user", "content": "有給は何日もらえる？"}]


def test_answer_question_uses_llm_expansion_only_when_enabled(
    ingest, employee, demo_glossary, anthropic_server, settings
):
    ingest("attendance.md")
    sentence = "有給休暇は入社6ヶ月後に10日付与されます"
    cited = Reply(body=anthropic_message(text_block(sentence + "。", char_location(sentence, 0, 0, 0))))

    settings.RAG_LLM_EXPANSION = False
    anthropic_server.script(cited)
    off = answer_question(user=employee, text="有給は何日もらえる？").answer
    assert len(anthropic_server.requests) == 1  # the answer only
    assert "付与日数" not in off.added_keywords

    settings.RAG_LLM_EXPANSION = True
    anthropic_server.requests.clear()
    anthropic_server.script(error_reply(500), cited)  # expansion fails, the answer still comes
    fallback = answer_question(user=employee, text="有給は何日もらえる？").answer
    assert len(anthropic_server.requests) == 2
    assert anthropic_server.requests[0].body["system"] == KEYWORD_PROMPT
    assert fallback.response_type == Answer.ResponseType.ANSWER
    assert fallback.added_keywords == ["有給休暇", "年次有給休暇", "年休"]

    anthropic_server.requests.clear()
    anthropic_server.script(Reply(body=anthropic_message(text_block('["付与日数"]'))), cited)
    expanded = answer_question(user=employee, text="有給は何日もらえる？").answer
    assert "付与日数" in expanded.added_keywords and "付与日数" in expanded.expanded_query


def test_gemini_llm_keywords_use_a_list_schema(settings):
    from tests.qa.providers.conftest import FakeServer

    server = FakeServer()
    server.start()
    try:
        settings.RAG_PROVIDER = "gemini"
        settings.GEMINI_API_KEY = "test-key"
        settings.GEMINI_BASE_URL = server.base_url
        settings.RAG_PROVIDER_MAX_RETRIES = 0
        body = {
            "candidates": [
                {"content": {"role": "model", "parts": [{"text": '["付与日数", "勤怠くん"]'}]}, "finishReason": "STOP"}
            ]
        }
        server.script(Reply(body=body))
        assert llm_keywords("有給は何日もらえる？") == ["付与日数", "勤怠くん"]
        [request] = server.requests
        assert ":generateContent" in request.path
        config = request.body["generationConfig"]
        assert config["responseMimeType"] == "application/json"
        schema = config.get("responseSchema") or config.get("responseJsonSchema")
        assert schema["type"].lower() == "array" and schema["items"]["type"].lower() == "string"

        server.script(Reply(status=503, body={"error": {"code": 503, "message": "down", "status": "UNAVAILABLE"}}))
        with pytest.raises(Exception):  # noqa: B017 - any failure; expand() catches them all
            llm_keywords("有給は何日もらえる？")
    finally:
        server.stop()


def test_llm_keyword_replies_are_validated():
    assert clean_keywords([" 有給休暇 ", "", "有給休暇", *[f"語{i}" for i in range(10)]]) == [
        "有給休暇",
        *[f"語{i}" for i in range(7)],
    ]
    assert parse_keyword_list('キーワード: ["年休", "休暇"] です') == ["年休", "休暇"]
    for bad in ({"keywords": ["年休"]}, "年休", [1, 2]):
        with pytest.raises(ValueError):
            clean_keywords(bad)
    with pytest.raises(ValueError):
        parse_keyword_list("キーワードはありません")


def test_llm_keywords_refuse_the_offline_provider(settings):
    from qa.types import ProviderConfigurationError

    settings.RAG_PROVIDER = "extractive"
    with pytest.raises(ProviderConfigurationError):
        llm_keywords("有給は何日？")


def test_the_best_documents_chunks_left_out_by_the_cap_follow_the_top_k() -> None:
    """The per-document cap keeps other documents in the top k; the best document's next chunks, which would
    have been in it but for the cap, come after it (a rule in one chunk, its figure in the next)."""
    from types import SimpleNamespace

    from qa.fusion import Candidate
    from qa.retrieval import _more_of_the_best_document, apply_floor_and_diversity

    document_of = {1: 10, 2: 10, 3: 10, 4: 20, 5: 10, 6: 30, 7: 10}
    ranked = [Candidate(chunk_id=i, score=1.0 / i, similarity=0.9, keyword_rank=i) for i in document_of]
    chunks = {pk: SimpleNamespace(document_id=doc) for pk, doc in document_of.items()}
    top = apply_floor_and_diversity(ranked, document_of, k=3, min_similarity=0.5, per_document=2)
    assert [c.chunk_id for c in top] == [1, 2, 4]
    more = _more_of_the_best_document(ranked, top, chunks, extra=2)  # type: ignore[arg-type]
    # Chunk 3 ranked above the last kept one (4); 5 and 7 did not, and 6 is another document.
    assert [c.chunk_id for c in more] == [3]


# --- the asked quantity ----------------------------------------------------------

TRAVEL_RULES = (
    "# 出張規程\n\n## 出張の申請\n"
    "出張の申請はワークフローから行い、上長の承認を受けてください。"
    "出張の申請には目的と行き先を書きます。出張の申請が承認されると手配を始められます。\n"
)
BOOKING_RULES = (
    "# 航空券と宿の手配\n\n## 手配の期限\n海外は出発の14日前まで、国内は出発の7日前までに手配を済ませます。\n"
)


def test_a_passage_stating_the_number_of_days_asked_for_is_retrieved_before_one_only_about_the_topic(
    ingest, employee, settings
):
    """「何日前まで？」: the rule book's 出張の申請 section shares the question's words and states no day;
    the booking rules state the days. With one hit, it is the one that can answer (qa.rerank.stating_first);
    with the re-ranking window closed, the words win as before. A question asking no quantity keeps them first."""
    ingest(text=TRAVEL_RULES, filename="travel.md")
    ingest(text=BOOKING_RULES, filename="booking.md")
    settings.RAG_TOP_K = 1
    question = "出張の申請は何日前までに出せばいい？"

    assert [h.filename for h in search(user=employee, query=question).hits][:1] == ["booking.md"]
    assert [h.filename for h in search(user=employee, query="出張の申請はどうやって出す？").hits][:1] == ["travel.md"]
    settings.RAG_RERANK_DEPTH = 1
    assert [h.filename for h in search(user=employee, query=question).hits][:1] == ["travel.md"]


def test_a_question_naming_a_place_is_answered_from_the_document_titled_with_it(ingest, employee):
    """Two entities' pages state the same kind of rule; 「日本で育休を取ったら…」 is about the page titled 日本,
    which words alone rank below the other country's: it is retrieved first and its rule is quoted."""
    ingest(
        text="# GitLab Canada Corp\n\n## 育児休職\n育児休業給付は、国の制度により給与の55%が最大15週間支給されます。"
        "育児休業給付の申請は政府のサイトから行います。\n",
        filename="canada.md",
    )
    ingest(
        text="# GitLab GK (日本) 福利厚生\n\n## 家族と人生の転機サポート\n出産後は雇用保険から給付があり、"
        "最初の6か月は67%、その後は50%です。\n",
        filename="japan.md",
    )
    question = "来年子どもが生まれる予定。日本で育休取ったら国から出る育児休業給付って給料の何％くらい？"
    assert search(user=employee, query=question).hits[0].filename == "japan.md"
    answer = answer_question(user=employee, text=question).answer
    assert "67%" in answer.answer_text


def test_a_site_the_asker_goes_to_does_not_make_its_own_document_the_one_asked_about(ingest, employee):
    """「岐阜工場に通ってて、通勤手当は？」 asks the company-wide allowance: the factory's safety rules, titled
    岐阜工場, are not moved up for it."""
    ingest(
        text="# 賃金規程\n\n## 通勤手当\n自家用車で通勤する者には、通勤手当を月額15,000円まで支給する。\n",
        filename="wages.md",
    )
    ingest(
        text="# 安全衛生管理規程（岐阜工場）\n\n## 構内の通行\n構内を自家用車で通行するときは、時速15km以下で走行する。\n",
        filename="gifu.md",
    )
    hits = search(user=employee, query="岐阜工場に自家用車で通ってるんだけど、通勤手当ってもらえる？").hits
    assert hits[0].filename == "wages.md"

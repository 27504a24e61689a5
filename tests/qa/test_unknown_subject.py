"""A question whose subject is in nothing the employee may read is off-topic (qa.retrieval.unknown_subject)."""

from __future__ import annotations

from dataclasses import replace

from qa.decision import NOT_FOUND, Calibration, Evidence, decide
from qa.question import analyse_question
from qa.retrieval import names_something_retrieved, unknown_subject
from qa.types import RetrievedChunk
from qa.vocabulary import TermMatch

TRAVEL = RetrievedChunk(
    chunk_id=1,
    document_id=1,
    version_id=1,
    filename="business_travel.md",
    section="出張旅費規程 > 3. 交通手段",
    text="有料道路・駐車場代は実費精算です。人事部との面談は年2回です。",
)


def test_a_subject_no_retrieved_text_mentions_is_unknown() -> None:
    assert unknown_subject("退職金はいくらですか？", [TRAVEL])
    assert not unknown_subject("駐車場代は精算できますか？", [TRAVEL])


def test_the_subject_of_a_later_clause_counts() -> None:
    # 「…とき、」 is a condition; 異議申し立て is what the question is about.
    assert unknown_subject("評価に納得できないとき、異議申し立ては面談から何日以内にできる？", [TRAVEL])
    assert not unknown_subject("出張のとき、駐車場代は精算できる？", [TRAVEL])


def test_the_subject_is_judged_by_its_head_and_the_specific_words_before_it() -> None:
    # 「XのY」 asks about Y. X mentioned keeps the subject known (人事部 says which 退職金 is meant)...
    assert not unknown_subject("人事部の退職金っていくらくらい？", [TRAVEL])
    # ... unless most documents use X, which then says nothing of Y (「うちの会社の株価は」).
    assert unknown_subject("うちの人事部の退職金っていくらくらい？", [TRAVEL], common=lambda word: word == "人事部")
    assert unknown_subject("株価の退職金はいくら？", [TRAVEL])
    assert not unknown_subject("退職後の駐車場代は精算できますか？", [TRAVEL], common=lambda word: True)


def test_a_noun_typed_straight_into_its_verb_ends_where_the_verb_starts() -> None:
    """Typed casually, 「会社辞めたいときって」 leaves out the を: the subject's word is 会社, not 会社辞, which no
    document writes; a subject the documents do not mention is still one."""
    resignation = replace(
        TRAVEL, text="退職を希望する者は、退職予定日の30日前までに退職届を提出すること。会社の貸与品は返却する。"
    )
    assert analyse_question("会社辞めたいときって、何日前までに言わなきゃいけないの？").subject_terms == ("会社",)
    assert not unknown_subject("会社辞めたいときって、何日前までに言わなきゃいけないの？", [resignation])
    assert analyse_question("残業代払われないって本当？").subject_terms == ("残業代",)
    assert unknown_subject("退職金もらえないって本当？", [resignation])


SCHEDULE = replace(
    TRAVEL,
    section="出張旅費規程 > 1. 出張の申請",
    text="出張の日程は出発の1週間前までに上長の承認を得てください。在宅勤務の機器の補助は上限2万円です。",
)


def test_an_aspect_asked_of_a_thing_no_text_mentions_is_about_that_thing() -> None:
    """「入社式の日程は？」: 日程 says what of 入社式 is asked; the documents mention 日程, never 入社式."""
    assert unknown_subject("入社式の日程は？", [SCHEDULE])
    assert not unknown_subject("出張の日程は？", [SCHEDULE])
    # Not 「X の Y」: 会社から says nothing of whose 補助; the head alone judges, as before.
    assert not unknown_subject("在宅用に椅子買おうと思うんだけど、会社から補助って出る？", [SCHEDULE])


def test_a_thing_whose_existence_is_asked_and_that_no_text_mentions_is_unknown() -> None:
    """「人事部って社員食堂ある？」: 人事部 is mentioned, and still nothing says whether there is a 社員食堂."""
    assert unknown_subject("人事部って社員食堂ある？ランチ代の補助とかってあるのかな", [TRAVEL])
    assert unknown_subject("社員食堂ってありますか？", [TRAVEL])
    assert not unknown_subject("駐車場代の精算ってある？", [TRAVEL])
    # 「何日ある？」 asks how many: 何日 is no thing the documents must name; 「ある程度」 asks about no thing.
    assert not unknown_subject("人事部との面談って年に何日ある？", [TRAVEL])
    assert analyse_question("有給休暇はある程度まとめて取れる？").existence_terms == ()
    assert analyse_question("横浜本社って社員食堂ある？").existence_terms == ("社員食堂",)


def test_an_english_question_is_judged_by_its_glossary_words_found_in_the_documents() -> None:
    assert not unknown_subject("Can I claim parking fees?", [TRAVEL], expansions=["駐車場代"])
    assert unknown_subject("Is there a severance payment?", [TRAVEL], expansions=["退職金"])
    # No glossary word: nothing to judge by (cross-lingual retrieval may still find the answer).
    assert not unknown_subject("What are the quiet hours?", [TRAVEL], expansions=[])


def test_an_english_question_about_a_thing_the_documents_never_write_is_unknown() -> None:
    """ "Is there a cafeteria in the office?": the everyday list's Japanese words for cafeteria (社員食堂, 食堂,
    カフェテリア) are in no hit and written nowhere the asker may read, so the documents do not say,
    whatever the office's words find. A loanword's bigrams alone (カフェ, テリア) do not count as written."""
    assert analyse_question("Is there a cafeteria in the office?").existence_terms == ("cafeteria",)
    assert analyse_question("Does the company offer a shuttle bus?").existence_terms == ("shuttle bus",)
    nowhere = lambda term: False
    assert unknown_subject("Is there a cafeteria in the office?", [TRAVEL], expansions=["オフィス"], written=nowhere)
    assert unknown_subject("How do I apply for a company dormitory?", [TRAVEL], written=nowhere)
    # Written in a document the asker may read, or in a hit: known.
    assert not unknown_subject("Is there a cafeteria?", [TRAVEL], written=lambda term: term == "社員食堂")
    assert not unknown_subject("Is there a parking lot near the office?", [TRAVEL], written=nowhere)  # 駐車場代


VPN = RetrievedChunk(
    chunk_id=2,
    document_id=2,
    version_id=2,
    filename="network_vpn.md",
    section="社内Wi-Fi・VPN利用ガイド > 2. VPN",
    text="社外からはVPNクライアントで接続します。",
    similarity=0.79,
)


def test_an_english_question_names_something_by_an_expansion_or_a_word_the_retrieved_chunks_use() -> None:
    housing = RetrievedChunk(**{**VPN.__dict__, "section": "福利厚生 > 住宅手当", "text": "住宅手当は月2万円です。"})
    assert names_something_retrieved("How much is the housing allowance?", [housing], expansions=["住宅手当"])
    # An expansion (glossary or corpus vocabulary) names something only where a retrieved chunk uses it.
    assert not names_something_retrieved("How much is the housing allowance?", [VPN], expansions=["住宅手当"])
    assert names_something_retrieved("What is the VPN server address?", [VPN])
    assert names_something_retrieved("How do I connect to the Wi-Fi?", [VPN])
    assert not names_something_retrieved("What will the weather be like tomorrow?", [VPN])


def _not_found(question: str, hits: list[RetrievedChunk]) -> bool:
    calibration = Calibration(off_topic_floor=0.842, english_floor=0.81, confident=0.88, medium=0.83, clarify_gap=0.03)
    asked = analyse_question(question)
    evidence = Evidence(hits=hits, names_something=names_something_retrieved(asked, hits))
    return decide(asked, evidence, calibration).outcome == NOT_FOUND


def test_an_english_question_naming_nothing_and_loosely_close_to_everything_is_off_topic() -> None:
    assert _not_found("What will the weather be like tomorrow?", [VPN])
    assert not _not_found("What is the VPN server address?", [VPN])
    close = RetrievedChunk(**{**VPN.__dict__, "similarity": 0.83})
    assert not _not_found("What will the weather be like tomorrow?", [close])


LEAVE = replace(
    TRAVEL,
    filename="leave.md",
    section="休暇規程 > 慶弔休暇",
    text="慶弔休暇として、子の誕生のときは2日休暇を取得できます。家族・友人の結婚のときは1日です。社員割引は別に定めます。",
)


def _written(term: str) -> bool:
    return term in LEAVE.text


def test_a_thing_asked_after_whose_words_are_not_all_written_is_unknown() -> None:
    """「誕生日休暇」: each character is in a bigram the rules use (誕生, 2日休暇), but they never write 誕生日,
    so they say nothing of such a leave, whatever else the question names (友達 → 友人, which they write)."""
    question = "誕生日休暇ってありますか？友達の会社にはあるらしくて"
    friends = [TermMatch("友達", "友人", "synonym")]
    assert unknown_subject(question, [LEAVE], ("友人",), reached=friends, written=_written)
    assert not unknown_subject("慶弔休暇ってありますか？", [LEAVE], written=_written)
    # A word a match took to what the documents write is theirs: 社割 is their 社員割引.
    discount = [TermMatch("社割", "社員割引", "everyday")]
    assert not unknown_subject("社割制度ってある？", [LEAVE], ("社員割引",), reached=discount, written=_written)


def test_a_thing_asked_after_is_not_made_known_by_what_the_questions_other_words_reach() -> None:
    """「…社員食堂が無料らしいんだけど、うちの会社にも社食ってある？」: 無料 reaching the 無償 the rules write (and 社食 reaching
    社内 by meaning alone) had made the question known, and it was answered with a snack allowance for study groups."""
    study = replace(LEAVE, text="社内勉強会の軽食は1回あたり上限5,000円を無償で支給します。")
    question = "友達の会社は社員食堂が無料らしいんだけど、うちの会社にも社食ってある？"
    reached = [TermMatch("無料", "無償", "synonym"), TermMatch("社食", "社内", "meaning")]
    assert unknown_subject(question, [study], ("無償", "社内"), reached=reached)
    # The thing itself reached as said stands for it: 社割 is their 社員割引.
    discount = [TermMatch("社割", "社員割引", "everyday")]
    assert not unknown_subject("社割制度ってある？", [LEAVE], ("社員割引",), reached=discount, written=_written)


def test_a_katakana_subject_is_mentioned_only_where_it_is_written_as_a_word() -> None:
    """ランチ's letters are in 「クランチ」 (a crunch before a release), as バイト's are in 「アルバイト」: neither mentions it.
    Written after a word of another script (「社員ランチ」) it is a word of its own."""
    crunch = replace(TRAVEL, text="クランチ中の夕食補助は1回1,000円です。クランチは事前に申請してください。")
    assert unknown_subject("社員食堂のランチって1食いくらですか？", [crunch])
    assert unknown_subject("社員食堂のランチって1食いくらですか？", [crunch], written_as_word=lambda word: False)
    lunch = replace(TRAVEL, text="社員ランチは1食500円で、給与から天引きします。")
    assert not unknown_subject("社員食堂のランチって1食いくらですか？", [lunch])
    assert not unknown_subject("ランチって1食いくら？", [crunch], written_as_word=lambda word: word == "ランチ")
    # A part of a katakana compound, as the analyser splits it, is written as a word: ノー|ネクタイ.
    summer = replace(TRAVEL, text="6月から9月までは、ノーネクタイ・上着なしで勤務できます。")
    assert not unknown_subject("ネクタイは外していいですか？", [summer], written_as_word=lambda word: False)


def test_a_katakana_subject_written_as_either_word_of_a_two_word_compound_is_mentioned() -> None:
    """The analyser reads ポモドーロテクニック as two words it cannot split further: ポモドーロ is written as a word
    there (and テクニック), and a question about it is about something the documents mention (it was turned away as
    not found)."""
    focus = replace(TRAVEL, text="ポモドーロテクニックは、25分の作業と5分の休憩を繰り返す時間管理の方法です。")
    assert not unknown_subject("ポモドーロってどういうやり方？", [focus], written_as_word=lambda word: False)
    assert not unknown_subject("テクニックって何？", [focus], written_as_word=lambda word: False)

"""Re-ranking by meaning: the top fused candidates re-ordered by their best sentence's similarity to the question."""

from __future__ import annotations

import numpy as np
import pytest

from documents.models import Chunk
from documents.segmentation import tokens
from qa.fusion import Candidate
from qa.rerank import best_sentence_similarity, rerank, reorder, sentence_keys
from tests.qa.conftest import ingest  # noqa: F401 - the fixture, used by name

QUESTION = np.array([1.0, 0.0, 0.0])


def unit(*values: float) -> np.ndarray:
    vector = np.array(values, dtype=np.float32)
    return vector / np.linalg.norm(vector)


def sentences(*similarities: float) -> np.ndarray:
    """A chunk's sentence matrix whose rows have these cosine similarities to ``QUESTION``."""
    return np.stack([unit(s, float(np.sqrt(1 - s * s)), 0.0) for s in similarities])


# Fused order: A and B share the question's words; C holds one sentence that means the question.
FUSED = [Candidate(1, score=0.90), Candidate(2, score=0.88), Candidate(3, score=0.80), Candidate(4, score=0.50)]
MATRICES = {1: sentences(0.60, 0.62), 2: sentences(0.58), 3: sentences(0.40, 0.97, 0.50), 4: sentences(0.55)}


def order(candidates: list[Candidate]) -> list[int]:
    return [c.chunk_id for c in candidates]


def test_a_passage_whose_sentence_means_the_question_overtakes_those_that_only_share_its_words():
    keys = sentence_keys(FUSED, MATRICES, QUESTION, depth=20)
    ranked = reorder(list(FUSED), keys)
    assert order(ranked) == [3, 1, 2, 4]
    # Only the order changes: scores stay the fused ones (the clarify gap and the provider read them).
    assert {c.chunk_id: c.score for c in ranked} == {1: 0.90, 2: 0.88, 3: 0.80, 4: 0.50}


def test_a_far_better_fused_candidate_keeps_its_lead_over_a_close_sentence():
    # The meaning of one sentence does not overturn a passage the fusion put far ahead.
    fused = [Candidate(1, score=0.95), Candidate(3, score=0.30), Candidate(4, score=0.25)]
    matrices = {1: sentences(0.80), 3: sentences(0.85), 4: sentences(0.50)}
    assert order(reorder(fused, sentence_keys(fused, matrices, QUESTION, depth=20)))[0] == 1


def test_keys_are_the_mean_of_where_a_candidate_stands_by_each_score():
    keys = sentence_keys(FUSED, MATRICES, QUESTION, depth=20)
    # Both scores min-max normalised over the candidates: the best by both gets 1, the worst by both 0.
    assert keys[4] == pytest.approx(0.0, abs=1e-6)
    assert 0 < keys[2] < keys[1] < 1
    assert keys[3] > keys[1]


def test_only_the_top_depth_are_reordered_and_the_rest_follow_in_fused_order():
    tail = [Candidate(5, score=0.40), Candidate(6, score=0.30)]
    matrices = {**MATRICES, 5: sentences(0.99), 6: sentences(0.98)}
    keys = sentence_keys(FUSED + tail, matrices, QUESTION, depth=4)
    assert set(keys) == {1, 2, 3, 4}
    assert order(reorder(FUSED + tail, keys))[4:] == [5, 6]  # below the depth: untouched, however close


def test_a_candidate_without_sentence_vectors_counts_as_the_least_similar():
    matrices = {cid: m for cid, m in MATRICES.items() if cid != 1}
    keys = sentence_keys(FUSED, matrices, QUESTION, depth=20)
    assert keys[1] == pytest.approx(0.5)  # best fused, least similar
    assert best_sentence_similarity(np.zeros((0, 3)), QUESTION) == 0.0


@pytest.mark.parametrize("depth", [0, 1])
def test_switched_off_nothing_moves(depth):
    keys = sentence_keys(FUSED, MATRICES, QUESTION, depth=depth)
    assert keys == {}
    assert order(reorder(list(FUSED), keys)) == [1, 2, 3, 4]


def test_the_sibling_re_ranker_starts_from_the_meaning_keys():
    # Two chunks of one document, equally good by words: the one whose sentence means the question keeps first place.
    bodies = {1: tokens("在宅勤務の申請"), 2: tokens("在宅勤務の申請")}
    candidates = [Candidate(2, score=0.9), Candidate(1, score=0.8)]
    groups = {1: 1, 2: 1}
    plain = rerank(candidates, tokens("在宅勤務の申請"), bodies, groups, depth=10, weight=0.1)
    assert order(plain) == [2, 1]
    keyed = rerank(candidates, tokens("在宅勤務の申請"), bodies, groups, depth=10, weight=0.1, base={1: 1.0, 2: 0.0})
    assert order(keyed) == [1, 2]


# Six sections about the question's subject, and eight others.
PASSAGES = {
    "idcard.md": "# 社員証\n\n社員証は入社初日に人事部から配布されます。顔写真と社員番号が印刷されています。",
    "gate.md": "# 入館\n\n入館ゲートには社員証をかざしてください。来客は受付で手続きします。",
    "printer.md": "# 複合機\n\n複合機での印刷は社員証で認証します。トナーの交換は総務部が行います。",
    "photo.md": "# 写真の更新\n\n社員証の写真は五年ごとに撮り直します。撮影日は人事部が案内します。",
    "strap.md": "# ストラップ\n\nストラップの色は部署を表します。社員証はオフィスでは首から下げてください。",
    "general.md": (
        "# 総務の手続き\n\n名刺の追加は申請書で依頼します。会議室の予約はポータルから行います。"
        "社員証を紛失した場合は、総務部の窓口へ届け出てください。鍵の貸し出しは受付で記録します。"
    ),
    "expense.md": "# 経費精算\n\n経費精算は月末までに申請してください。領収書は原本を提出します。",
    "remote.md": "# 在宅勤務\n\n在宅勤務は週二日まで認められます。申請は前日までに上長へ出します。",
    "lunch.md": "# 社員食堂\n\n社員食堂は十一時半から営業します。混雑する時間帯は正午です。",
    "parking.md": "# 駐車場\n\n駐車場の利用は届け出制です。来客用の区画は二台分あります。",
    "training.md": "# 研修\n\n新入社員研修は四月に二週間行います。講師は各部署から選ばれます。",
    "health.md": "# 健康診断\n\n健康診断は毎年六月に実施します。結果は本人に郵送されます。",
    "leave.md": "# 有給休暇\n\n有給休暇は入社半年後に十日付与されます。申請は三日前までです。",
    "travel.md": "# 出張\n\n出張の宿泊費は一泊一万円までです。新幹線は指定席を使えます。",
}
# Everyday words none of them writes: the keyword ranking has nothing to lead with.
# (Not 「IDカード」: カード is in the everyday list, and these documents write one of its senses, 社員証.)
EVERYDAY = "IDを落っことしちゃった"


def _ingest_all(ingest) -> None:
    for name, text in PASSAGES.items():
        ingest(text=text, filename=name)


def test_the_first_search_stores_the_candidates_sentence_vectors_and_the_next_reads_them(
    ingest, employee, monkeypatch, settings
):
    """Warm questions cost a read of the rows: the model is not called again for the same candidates."""
    import documents.embeddings
    import documents.sentence_vectors
    import documents.services
    from qa.retrieval import search

    settings.RAG_SENTENCE_RERANK_DEPTH = 20
    _ingest_all(ingest)
    assert not Chunk.objects.exclude(sentence_vectors=None).exists()

    first = search(user=employee, query=EVERYDAY)
    stored = Chunk.objects.exclude(sentence_vectors=None)
    assert stored.count() == Chunk.objects.count()  # every candidate of this small corpus

    # A later process: nothing in memory, only the rows.
    documents.sentence_vectors._cache.clear()
    documents.services.forget_stored_sentence_vectors()

    def no_model(texts: list[str], **_: object) -> np.ndarray:
        raise AssertionError(f"sentence vectors made again for {len(texts)} sentences")

    monkeypatch.setattr(documents.embeddings, "embed_passages", no_model)
    again = search(user=employee, query=EVERYDAY)
    assert [h.chunk_id for h in again.hits] == [h.chunk_id for h in first.hits]
    assert all(h.sentence_vectors is not None for h in again.hits)  # the provider reads them from the hits


def test_a_question_whose_words_single_out_one_passage_is_not_re_ranked_by_meaning(ingest, employee, settings):
    """When the keyword ranking is decisive the words lead, and no sentence is embedded for the re-ranking."""
    from qa.engine import EngineConfig, HybridEngine
    from qa.retrieval import live_engine

    settings.RAG_SENTENCE_RERANK_DEPTH = 20
    _ingest_all(ingest)
    live = live_engine()
    asked: list[list[int]] = []

    def recording(chunk_ids):
        asked.append(list(chunk_ids))
        return {}

    engine = HybridEngine(live.dense, live.keyword, EngineConfig.from_settings(), sentences=recording)
    engine.search(query="トナーの交換は誰がしますか")  # トナー: one passage
    assert asked == []
    engine.search(query=EVERYDAY)
    assert len(asked) == 1 and len(asked[0]) == len(PASSAGES)  # the top 20: here every chunk

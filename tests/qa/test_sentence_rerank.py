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


PASSAGES = {
    "idcard.md": "# 社員証\n\n社員証は入社初日に人事部から配布されます。社員証には顔写真と社員番号が印刷されています。",
    "general.md": (
        "# 総務の手続き\n\n名刺の追加は申請書で依頼します。会議室の予約はポータルから行います。"
        "社員証をなくしたときは、総務部の窓口へ届け出てください。鍵の貸し出しは受付で記録します。"
    ),
}


def test_the_first_search_stores_the_candidates_sentence_vectors_and_the_next_reads_them(
    ingest, employee, monkeypatch, settings
):
    """Warm questions cost a read of the rows: the model is not called again for the same candidates."""
    import documents.embeddings
    import documents.services
    import documents.sentence_vectors
    from qa.retrieval import search

    settings.RAG_SENTENCE_RERANK_DEPTH = 20
    for name, text in PASSAGES.items():
        ingest(text=text, filename=name)
    assert not Chunk.objects.exclude(sentence_vectors=None).exists()

    first = search(user=employee, query="社員証をなくしたらどうすればいい？")
    assert "sentences" in first.timings
    stored = Chunk.objects.exclude(sentence_vectors=None)
    assert stored.count() == Chunk.objects.count()  # every candidate of this small corpus
    assert any(h.filename == "general.md" for h in first.hits)

    # A later process: nothing in memory, only the rows.
    documents.sentence_vectors._cache.clear()
    documents.services.forget_stored_sentence_vectors()

    def no_model(texts: list[str], **_: object) -> np.ndarray:
        raise AssertionError(f"sentence vectors made again for {len(texts)} sentences")

    monkeypatch.setattr(documents.embeddings, "embed_passages", no_model)
    again = search(user=employee, query="社員証をなくしたらどうすればいい？")
    assert [h.chunk_id for h in again.hits] == [h.chunk_id for h in first.hits]
    assert all(h.sentence_vectors is not None for h in again.hits)  # the provider reads them from the hits

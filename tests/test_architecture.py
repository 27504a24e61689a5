"""The apps' import structure: documents/ stands alone, and no import cycle crosses apps.

Also: the question is analysed once per answer (counted on one two-part question).

Walks every import statement (module level and inside functions: a lazy import
is still a dependency) of the project's packages, resolved to project modules.
"""

from __future__ import annotations

import ast
import inspect
import sys
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from types import FrameType

import pytest

ROOT = Path(__file__).resolve().parents[1]
APPS = ("documents", "qa", "verification", "ragportal")
# The reviewers' side: the only part of verification that may touch qa's models (or any app).
REVIEW_PACKAGE = "verification.review"
# Modules of verification that are neither pure checks nor the review side: the app's
# config (it registers the review admin and notices) and the management commands.
VERIFICATION_WIRING = ("verification.apps", "verification.management")


def _modules() -> dict[str, Path]:
    found = {}
    for app in APPS:
        for path in (ROOT / app).rglob("*.py"):
            if "migrations" in path.parts:
                continue
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join(parts)] = path
    return found


MODULES = _modules()


def _resolve(name: str) -> str | None:
    """The project module ``name`` refers to (a module, or the module defining an imported name)."""
    while name:
        if name in MODULES:
            return name
        name = name.rpartition(".")[0]
    return None


def _imported_names(module: str) -> Iterator[str]:
    """Every dotted name ``module`` imports (absolute), project or not."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(
                    package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else [])
                )
            yield from [f"{base}.{alias.name}" for alias in node.names] + [base]


def _imports(module: str) -> Iterator[str]:
    for name in _imported_names(module):
        target = _resolve(name)
        if target and target != module:
            yield target


GRAPH = {module: set(_imports(module)) for module in MODULES}


def _app(module: str) -> str:
    return module.split(".")[0]


def test_the_walk_sees_the_project() -> None:
    assert "qa.models" in GRAPH["verification.review.queue"]
    assert "verification.verdict" in PURE_VERIFICATION and "verification.review.queue" not in PURE_VERIFICATION
    assert "documents.models" in GRAPH["qa.services"]


def test_documents_imports_neither_qa_nor_verification() -> None:
    offending = sorted(
        f"{module} -> {target}"
        for module, targets in GRAPH.items()
        if _app(module) == "documents"
        for target in targets
        if _app(target) in ("qa", "verification")
    )
    assert offending == []


def _in(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


# The pure checks: every module of verification outside the review package and the wiring.
PURE_VERIFICATION = sorted(
    module
    for module in MODULES
    if _app(module) == "verification"
    and module != "verification"
    and not any(_in(module, other) for other in (REVIEW_PACKAGE, *VERIFICATION_WIRING))
)


@pytest.mark.parametrize("module", PURE_VERIFICATION)
def test_pure_checks_import_no_django_app(module: str) -> None:
    """A pure check imports neither Django nor any app (documents, qa, the review side): it runs without settings."""
    apps = {t for t in GRAPH[module] if _app(t) in ("documents", "qa") or _in(t, REVIEW_PACKAGE)}
    django = {name for name in _imported_names(module) if _in(name, "django") or _in(name, "rest_framework")}
    assert apps | django == set()


def test_only_the_review_package_touches_qa() -> None:
    """Within verification, only verification/review/ imports qa (its models, selectors, services)."""
    offending = sorted(
        f"{module} -> {target}"
        for module, targets in GRAPH.items()
        if _app(module) == "verification" and not _in(module, REVIEW_PACKAGE)
        for target in targets
        if _app(target) == "qa"
    )
    assert offending == []


def _strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iterative."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []
    counter = 0
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                components.append(sorted(component))
    return components


def test_no_import_cycle_crosses_apps() -> None:
    crossing = [c for c in _strongly_connected(GRAPH) if len({_app(m) for m in c}) > 1]
    assert crossing == []


def test_no_provider_reads_the_verifiers_judgement() -> None:
    """The verifier checks an answer independently of how the provider chose it.

    Both read what a question asks and what a text carries (``verification.answer_types``),
    but the verifier's judgement (``verification.answer_fit``: key terms, meaning, thresholds)
    is reached by no provider, directly or through another module.
    """
    providers = [m for m in MODULES if m == "qa.providers" or m.startswith("qa.providers.")]
    assert "qa.providers.extractive" in providers
    assert "verification.answer_types" in GRAPH["qa.providers.extractive"]
    reached = {m: _reachable(m) for m in providers}
    assert sorted(m for m, seen in reached.items() if "verification.answer_fit" in seen) == []


def _reachable(module: str) -> set[str]:
    seen: set[str] = set()
    todo = [module]
    while todo:
        for target in GRAPH.get(todo.pop(), ()):
            if target not in seen:
                seen.add(target)
                todo.append(target)
    return seen


def _is_evaluation(module: str) -> bool:
    return module == "qa.evaluation" or module.startswith("qa.evaluation.")


def _is_command(module: str) -> bool:
    return ".management.commands." in module


def test_the_walk_sees_the_evaluation_package() -> None:
    assert "qa.evaluation.golden" in GRAPH["qa.management.commands.evaluate_portal"]
    assert "qa.services" in GRAPH["qa.evaluation.golden"]


def test_no_runtime_module_imports_the_evaluation_package() -> None:
    """Measuring the portal is never part of serving it: only management commands reach ``qa.evaluation``."""
    offending = sorted(
        f"{module} -> {target}"
        for module, targets in GRAPH.items()
        if not _is_evaluation(module) and not _is_command(module)
        for target in targets
        if _is_evaluation(target)
    )
    assert offending == []


MAX_FUNCTION_LINES = 60
# Functions still longer, to be split (STYLE.md: functions short). This list only shrinks (it is
# empty now): a function that gets short must leave it (the test fails while it is listed).
LONG_FUNCTIONS_TO_SPLIT: set[str] = set()


def _function_lengths() -> dict[str, int]:
    """``module:Qualified.name`` → lines from ``def`` to its last line, for every function of the apps."""
    lengths: dict[str, int] = {}
    for module, path in MODULES.items():
        work: list[tuple[ast.AST, str]] = [(ast.parse(path.read_text(encoding="utf-8")), "")]
        while work:
            node, prefix = work.pop()
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    name = prefix + child.name
                    if not isinstance(child, ast.ClassDef):
                        lengths[f"{module}:{name}"] = (child.end_lineno or child.lineno) - child.lineno + 1
                    work.append((child, name + "."))
    return lengths


LENGTHS = _function_lengths()


def test_the_length_walk_sees_methods_and_functions() -> None:
    assert "qa.services:answer_question" in LENGTHS
    assert "qa.evaluation.golden:GoldenQuery.from_json" in LENGTHS


def test_no_function_is_longer_than_60_lines() -> None:
    long = {name for name, lines in LENGTHS.items() if lines > MAX_FUNCTION_LINES}
    assert sorted(long - LONG_FUNCTIONS_TO_SPLIT) == []
    assert sorted(LONG_FUNCTIONS_TO_SPLIT - long) == [], "split already: remove from LONG_FUNCTIONS_TO_SPLIT"


# --- the question is analysed once per answer ---------------------------------------------

TWO_PART = "在宅勤務は週何日までできて、手当は月いくらですか？"


def _calls_during(action: Callable[[], object], functions: Sequence[Callable[..., object]]) -> Counter:
    """How often each of ``functions`` runs during ``action``, whatever name it is imported under.

    Counted by code object (a profiler hook), so a copy imported into another
    module (``from verification.answer_types import asked_types``) is counted too.
    ``is_english`` counts only the calls on the question's own text.
    """
    codes = {inspect.unwrap(f).__code__: f.__name__ for f in functions}
    counts: Counter = Counter()

    def hook(frame: FrameType, event: str, _arg: object) -> None:
        name = codes.get(frame.f_code) if event == "call" else None
        if name and (name != "is_english" or frame.f_locals.get("text") == TWO_PART):
            counts[name] += 1

    sys.setprofile(hook)
    try:
        action()
    finally:
        sys.setprofile(None)
    return counts


@pytest.mark.django_db
def test_the_question_is_analysed_once_per_answer(owner, employee) -> None:
    from documents.services import document_ingest
    from qa.models import Answer
    from qa.question import analyse_question
    from qa.services import answer_question
    from ragportal.text import is_english
    from verification import answer_types

    demo = ROOT / "documents" / "demo_corpus" / "remote_work.md"
    document_ingest(owner=owner, filename=demo.name, data=demo.read_bytes())
    analysis = [
        analyse_question,
        answer_types.question_parts,
        answer_types.asked_types,
        answer_types.asked_units,
        is_english,
    ]

    answered = _calls_during(lambda: answer_question(user=employee, text=TWO_PART).answer, analysis)

    assert Answer.objects.get().response_type == Answer.ResponseType.ANSWER
    assert answered["analyse_question"] == 1
    # Retrieval, the decision, the provider and the verifier read the analysis: no part of the
    # question is classified again after it (one analysis of a two-part question makes these calls).
    once = _calls_during(lambda: analyse_question(TWO_PART), analysis)
    assert once["question_parts"] >= 2 and once["is_english"] == 1
    assert answered == once

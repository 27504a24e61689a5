"""The demo's example answers from the Claude path, made against the fake Anthropic server.

With the offline provider some flags never occur (it quotes the documents
verbatim), so a reviewer trying the demo could not see them. Each recipe here asks
one demo question through the real answering service, with the real Anthropic
provider and SDK pointed at a loopback ``FakeCloud`` that says what the recipe
scripts (a made-up file name, a quote that is not in the document, an added
claim, ...). Verification judges the answer as it would judge Claude's; the
stored result is what ``load_demo`` loads as examples (``qa.examples``).

Run by ``manage.py make_example_answers``; nothing here is used while serving.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction

from qa.evaluation.fake_clouds import ANTHROPIC, FakeAnswer, FakeCloud
from qa.examples import example_from_answer
from qa.models import Answer
from qa.providers.anthropic_provider import AnthropicProvider
from qa.providers.base import ABSTAIN_JA
from qa.services import answer_question, feedback_record

# The model name stored with each example: a reviewer sees it was not a real Claude.
EXAMPLE_MODEL = "claude (fake server example)"
# A sentence, or a list item or line without 。 (the demo writes many rules as bullets).
_SENTENCE = re.compile(r"[^\n。]+。?")
# A list item's mark ("- ", "3. "): not part of the sentence Claude would quote.
_LIST_MARK = re.compile(r"^(?:[-*#]+|\d+\.)\s*")

Script = Callable[[list[str]], FakeAnswer]


def sentence_with(documents: list[str], word: str) -> tuple[int, str]:
    """(document index, the first sentence of the documents sent that contains ``word``).

    Raises LookupError when no document sent has one: the demo corpus changed and
    the recipe must be updated.
    """
    for index, text in enumerate(documents):
        for match in _SENTENCE.finditer(text):
            sentence = _LIST_MARK.sub("", match.group(0).strip())
            if word in sentence:
                return index, sentence
    raise LookupError(f"no sentence with {word!r} in the documents sent")


def quoting(word: str, *, before: str = "", after: str = "", cite: bool = True) -> Script:
    """Claude quotes the sentence with ``word`` (cited, unless ``cite`` is false), with ``before``/``after`` added."""

    def say(documents: list[str]) -> FakeAnswer:
        index, sentence = sentence_with(documents, word)
        # Claude ends the sentence it writes with 。 even where the document's list item has none.
        written = sentence if sentence.endswith("。") else sentence + "。"
        return FakeAnswer(text=f"{before}{written}{after}", quote=sentence, document=index if cite else None)

    return say


def abstaining(documents: list[str]) -> FakeAnswer:
    """Claude says the documents do not answer the question (the portal's abstention sentence)."""
    return FakeAnswer(text=ABSTAIN_JA, document=None)


def misquoting(text: str) -> Script:
    """Claude cites the first document with a quote of its own making (``text``), not found in it."""
    return lambda documents: FakeAnswer(text=text, quote=text, document=0)


@dataclass(frozen=True)
class Recipe:
    """One example: the question, what the fake Claude says to the documents it is sent, the flag it must get.

    ``feedback``: a 👎 (reason, comment) the example comes with, for a flag that does
    not put an answer in the review queue by itself. ``offline``: the provider
    cannot be reached (the provider-error example).
    """

    question: str
    expect: str
    say: Script = abstaining
    feedback: tuple[str, str] | None = None
    offline: bool = False


RECIPES: tuple[Recipe, ...] = (
    Recipe(
        "有給休暇は何日もらえますか？",
        "fabricated_source",
        quoting("10日", after="（出典: leave_policy_2019.md）"),
    ),
    Recipe(
        "コアタイムは何時から何時までですか？",
        "fabricated_quote",
        misquoting("コアタイムは9:00〜16:00です。"),
    ),
    Recipe(
        "経費の申請期限はいつまでですか？",
        "unsupported_claim",
        quoting("1ヶ月以内", after="なお、期限を過ぎた申請も部長の承認があれば3ヶ月まで受け付けます。"),
    ),
    Recipe(
        "国内出張は何日前までに申請しますか？",
        "low_grounding",
        misquoting(
            "出張の申請は不要です。出発後に交通費の領収書を総務部へ郵送してください。"
            "宿泊費は1泊30,000円まで精算でき、日当は一律5,000円です。"
        ),
    ),
    Recipe(
        "お昼って何時から何時まで抜けていいの？",
        "no_citation",
        quoting("12:00", cite=False),
    ),
    Recipe(
        "熱が出て会社を休むとき、朝何時までに言えばいい？",
        "weak_citation",
        quoting("9:00", before="attendance の規程によると、", cite=False),
    ),
    Recipe(
        "有給申請は何日前までに申請する必要がありますか？",
        "answer_mismatch",
        quoting("10日"),
        feedback=("insufficient", "何日前までに申請するかを聞いたのに、付与日数の話でした。"),
    ),
    # Claude finds nothing in the documents it is sent; 👎 puts it in the queue.
    Recipe(
        "健康診断の結果はいつ届きますか？",
        "not_found",
        feedback=("insufficient", "結果がいつ届くかを知りたかったのですが、答えがありませんでした。"),
    ),
    # Nothing close enough is found: answered "not found" before Claude is asked.
    Recipe("社員旅行の行き先は毎年どこですか？", "low_retrieval"),
    Recipe("出張の日当はいくらですか？", "provider_error", offline=True),
)


@dataclass
class ScriptedCloud(FakeCloud):
    """A fake Anthropic server whose answer a recipe writes from the documents in each request.

    A script that fails (the documents sent lack what it looks for) is recorded
    in ``failures``: the client only sees the connection drop.
    """

    script: Script | None = None
    failures: list[Exception] = field(default_factory=list)

    def answer_for(self, body: dict[str, Any]) -> FakeAnswer:
        if self.script is None:
            return super().answer_for(body)
        content = body["messages"][-1]["content"]
        documents = [item["source"]["data"] for item in content if item.get("type") == "document"]
        try:
            return self.script(documents)
        except LookupError as exc:
            self.failures.append(exc)
            raise


def _provider(base_url: str) -> AnthropicProvider:
    return AnthropicProvider(
        api_key="fake-example-key", model=EXAMPLE_MODEL, base_url=base_url, timeout=10, max_retries=0
    )


def _ask(recipe: Recipe, user: User) -> Answer:
    """``recipe``'s question answered by the real Anthropic provider and SDK against a fake speaking for it.

    An ``offline`` recipe is sent to the fake's port after it stopped: nothing
    listens there, as when the API cannot be reached. Raises LookupError when the
    recipe's script found nothing to say.
    """
    with ScriptedCloud(ANTHROPIC, pause=0.0, script=recipe.say) as cloud:
        if not recipe.offline:
            answer = answer_question(user=user, text=recipe.question, provider=_provider(cloud.base_url)).answer
    if recipe.offline:
        answer = answer_question(user=user, text=recipe.question, provider=_provider(cloud.base_url)).answer
    if cloud.failures:
        raise LookupError(f"{recipe.question!r}: {cloud.failures[0]}")
    return answer


class _DiscardError(Exception):
    """Raised to roll back the answers asked while making the examples."""


def example_answers_make(*, user: User, recipes: tuple[Recipe, ...] = RECIPES) -> list[dict[str, Any]]:
    """Ask each recipe's question as ``user`` and return the examples (``qa.examples`` format).

    The answers are asked in a transaction that is rolled back: the database is
    left as it was. Raises ValueError when an answer lacks the flag its recipe
    expects, LookupError when a recipe finds nothing to quote (the corpus or the
    verifier changed: the recipe must be updated).
    """
    examples: list[dict[str, Any]] = []
    try:
        with transaction.atomic():
            for recipe in recipes:
                answer = _ask(recipe, user)
                if recipe.expect not in answer.flags:
                    raise ValueError(f"{recipe.question!r}: expected {recipe.expect}, got {answer.flags}")
                if recipe.feedback:
                    reason, comment = recipe.feedback
                    feedback_record(answer=answer, user=user, rating=-1, reason=reason, comment=comment)
                examples.append(example_from_answer(Answer.objects.get(pk=answer.pk)))
            raise _DiscardError
    except _DiscardError:
        pass
    return examples

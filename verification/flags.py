"""The flags an answer can carry: each defined once, with everything said about it.

Pure Python, no Django. The model's ``flag_<name>`` columns, the verifier's flag
list, the review queue's rule, the reviewer's badges and filters and the
user's fallback warnings are all derived from :data:`FLAGS`. Adding a flag is
one entry here plus its model field (and migration).

Texts are msgids marked with :func:`gettext_noop`; they are translated where
they are shown.
"""

from __future__ import annotations

from dataclasses import dataclass


def gettext_noop(message: str) -> str:
    """Mark a message for extraction (``makemessages``) without translating it here.

    The ``verification`` checks must not import Django; the app layer
    translates a stored message with ``gettext`` when it displays it.
    """
    return message


# Warnings the verifier adds; the parameters in braces are filled when warning.
WARNING_FABRICATED = gettext_noop("回答に検索結果にない出典が含まれています: {names}")
WARNING_UNKNOWN_DOCUMENT = gettext_noop("回答が検索結果にない文書を引用しています")
WARNING_NONE = gettext_noop("回答に出典が含まれていません")
WARNING_WEAK = gettext_noop("出典の表記が不完全です（*.md形式での明示を推奨）")
WARNING_FABRICATED_QUOTE = gettext_noop("引用された文が出典の文書に見つかりません（{count}件）")
WARNING_LOW_GROUNDING = gettext_noop(
    "回答のうち出典で裏付けられた部分が少ないため（{percent}％）、回答を表示していません"
)
WARNING_UNSUPPORTED = gettext_noop("文書で確認できない記述が含まれています（{count}文）")
WARNING_LOW_RETRIEVAL = gettext_noop("質問に近い文書が見つからなかったため、回答の信頼度は低くなっています")
WARNING_ANSWER_MISMATCH = gettext_noop("質問に直接答えていない可能性があります")

# Why one sentence is marked unsupported, as the reader sees it beside the sentence.
REASON_NOT_IN_EVIDENCE = gettext_noop("『{term}』が根拠の文書にありません")
REASON_OTHER_CONTEXT = gettext_noop("『{term}』は根拠の文書では別の事柄について書かれています")
REASON_CONTRADICTION = gettext_noop("根拠の文書の記述と食い違っています")
REASON_NO_EVIDENCE = gettext_noop("根拠となる文書がありません")
REASON_UNSUPPORTED = gettext_noop("根拠の文書に書かれていない内容を含みます")
# Sentence verdicts that name what the evidence lacks (the first missing item is shown).
_NAMING_REASONS = {
    "number_not_in_evidence": REASON_NOT_IN_EVIDENCE,
    "quoted_term_not_in_evidence": REASON_NOT_IN_EVIDENCE,
    "unknown_term": REASON_NOT_IN_EVIDENCE,
    "number_out_of_context": REASON_OTHER_CONTEXT,
}


def sentence_reason(reason: str, missing: list[str] | tuple[str, ...] = ()) -> tuple[str, dict[str, str]]:
    """The reader's reason for an unsupported sentence: ``(msgid, params)`` to translate, then format.

    A number, quoted term or rare term the evidence lacks is named
    (「『20日』が根拠の文書にありません」); an added claim found by meaning or
    low overlap gets the general 「根拠の文書に書かれていない内容を含みます」.
    """
    template = _NAMING_REASONS.get(reason)
    if template is not None and missing:
        return template, {"term": str(missing[0])}
    if reason == "contradiction":
        return REASON_CONTRADICTION, {}
    if reason == "no_evidence":
        return REASON_NO_EVIDENCE, {}
    return REASON_UNSUPPORTED, {}


@dataclass(frozen=True)
class Flag:
    """One flag.

    ``needs_review``: the flag alone puts the answer in the review queue (low
    confidence and 👎 do too). ``reviewer_label``: the admin's badge and filter.
    ``user_label``: shown to the user when the answer stored no warning text
    ("" shows nothing). ``warnings``: what the verifier may say when it sets
    the flag. ``set_by_verifier``: false for flags the answering service sets.
    ``providers_note``: for reviewers, which answer providers can produce the flag
    ("" when any can); shown under the queue's flag filter.
    """

    name: str
    needs_review: bool
    reviewer_label: str
    user_label: str
    warnings: tuple[str, ...] = ()
    set_by_verifier: bool = True
    providers_note: str = ""


FLAGS: tuple[Flag, ...] = (
    Flag("no_citation", False, gettext_noop("出典なし"), gettext_noop("回答に出典が含まれていません"), (WARNING_NONE,)),
    Flag(
        "weak_citation", False, gettext_noop("出典があいまい"), gettext_noop("出典の表記が不完全です"), (WARNING_WEAK,)
    ),
    Flag(
        "fabricated_source",
        True,
        gettext_noop("存在しない出典"),
        gettext_noop("回答に検索結果にない出典が含まれています"),
        (WARNING_FABRICATED, WARNING_UNKNOWN_DOCUMENT),
        providers_note=gettext_noop(
            "文章を自分で書くプロバイダー（anthropic・gemini）で起こります。回答が検索結果にないファイル名を挙げたか、"
            "引用が渡していない文書を指した回答です。extractive は文書の文をそのまま使うため、"
            "その文自体が検索結果にない別のファイル名を挙げている場合にだけ付きます。"
        ),
    ),
    Flag(
        "fabricated_quote",
        True,
        gettext_noop("引用が原文にない"),
        gettext_noop("引用が文書中に見つかりません"),
        (WARNING_FABRICATED_QUOTE,),
        providers_note=gettext_noop(
            "引用を自分で書くプロバイダー（anthropic・gemini）でだけ起こります。"
            "extractive は原文をそのまま引用するため、この絞り込みは常に空です。"
        ),
    ),
    Flag(
        "low_grounding",
        True,
        gettext_noop("根拠不足"),
        gettext_noop("根拠のある部分が少ない回答です"),
        (WARNING_LOW_GROUNDING,),
    ),
    Flag(
        "unsupported_claim",
        True,
        gettext_noop("根拠のない記述"),
        gettext_noop("根拠が確認できない文があります"),
        (WARNING_UNSUPPORTED,),
    ),
    Flag(
        "answer_mismatch",
        False,
        gettext_noop("質問とずれた回答"),
        gettext_noop("質問に直接答えていない可能性があります"),
        (WARNING_ANSWER_MISMATCH,),
    ),
    Flag("not_found", False, gettext_noop("該当なし"), ""),
    Flag(
        "low_retrieval",
        False,
        gettext_noop("検索一致が弱い"),
        gettext_noop("関連する文書との一致度が低い回答です"),
        (WARNING_LOW_RETRIEVAL,),
    ),
    Flag(
        "provider_error",
        True,
        gettext_noop("プロバイダーエラー"),
        gettext_noop("回答の生成中にエラーが発生しました"),
        set_by_verifier=False,
        providers_note=gettext_noop(
            "外部の API を呼ぶプロバイダー（anthropic・gemini）でだけ起こります（接続できない、上限に達した、"
            "応答が途中で切れたなど）。extractive はこのサーバーの中で答えるため付きません。"
        ),
    ),
)

FLAGS_BY_NAME: dict[str, Flag] = {flag.name: flag for flag in FLAGS}
# Every flag, in display order: the model has one boolean column per name.
FLAG_NAMES: tuple[str, ...] = tuple(flag.name for flag in FLAGS)
# The flags :func:`verification.verdict.verify` can set.
VERIFIER_FLAG_NAMES: tuple[str, ...] = tuple(flag.name for flag in FLAGS if flag.set_by_verifier)
# Flags that send an answer to the review queue by themselves.
REVIEW_FLAGS: frozenset[str] = frozenset(flag.name for flag in FLAGS if flag.needs_review)

"""Why indexing failed, in words a document owner can act on.

The owner's page shows the reason; the raw error (a Chroma traceback, an SQL
message, a path on the server) goes to the log only. Importable without Django
settings; the messages are translated when called.
"""

from __future__ import annotations

import errno

from django.core.exceptions import ValidationError
from django.db import OperationalError
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

# A document cannot be deleted while the Chroma server is down (its vectors could not be removed): a 503 saying so.
DELETE_UNAVAILABLE = gettext_lazy(
    "検索用の索引（ベクトル索引）に接続できないため、いまは文書を削除できません。文書はそのまま残っています。しばらくしてからもう一度お試しください。"
)


class IndexingInterruptedError(Exception):
    """The worker indexing a version stopped (killed, crashed, restarted) before it finished."""


class DenseIndexUnavailableError(Exception):
    """The Chroma server cannot be reached: nothing can be searched or embedded into it until it is back."""


def failure_reason(exc: BaseException) -> str:
    """One sentence or two for the owner: what went wrong and what to do next.

    A ``ValidationError`` carries its own message for the owner; everything else
    is described by its kind only.
    """
    if isinstance(exc, ValidationError):
        return " ".join(exc.messages)
    if isinstance(exc, IndexingInterruptedError):
        return _(
            "索引を作成していた処理が途中で止まりました（再試行の上限に達しました）。"
            "ファイルが大きすぎる可能性があります。分割するか、管理者に連絡してください。"
        )
    if isinstance(exc, MemoryError):
        return _("文書が大きすぎてメモリが足りませんでした。ファイルを分割してアップロードしてください。")
    if isinstance(exc, OSError) and exc.errno == errno.ENOSPC:
        return _("サーバーのディスクの空きが足りません。管理者に連絡してください。")
    if isinstance(exc, DenseIndexUnavailableError):
        return _(
            "検索用の索引（ベクトル索引）のサーバーに接続できませんでした。"
            "復旧してから「索引を作り直す」を押してください。続く場合は管理者に連絡してください。"
        )
    if isinstance(exc, OperationalError):  # locked or unreachable; other database errors are bugs
        return _(
            "データベースが混み合っていたため保存できませんでした。しばらくしてから「索引を作り直す」を押してください。"
        )
    if type(exc).__module__.split(".")[0] == "chromadb":
        return _(
            "検索用の索引（ベクトル索引）に書き込めませんでした。"
            "しばらくしてから「索引を作り直す」を押してください。続く場合は管理者に連絡してください。"
        )
    return _(
        "予期しないエラーが起きました。しばらくしてから「索引を作り直す」を押し、続く場合は管理者に連絡してください。"
    )

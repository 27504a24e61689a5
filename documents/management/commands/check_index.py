from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser

from documents.recovery import index_check, index_repair

KINDS = (
    ("dense_missing", "missing from the dense index"),
    ("dense_stale", "stale in the dense index"),
    ("dense_extra", "extra in the dense index"),
    ("keyword_missing", "missing from the keyword index"),
    ("keyword_stale", "stale in the keyword index"),
    ("keyword_extra", "extra in the keyword index"),
)


class Command(BaseCommand):
    help = (
        "Compare the live chunks in the database with the keyword index and the dense (Chroma) index; "
        "report missing, stale and extra entries by document. With --repair, re-index and clean up. "
        "Exits non-zero when drift remains."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--repair",
            action="store_true",
            help="re-index live versions with missing or stale entries, remove extra ones",
        )

    def handle(self, *args: object, **options: object) -> None:
        check = index_check()
        self._report(check)
        if check.clean:
            return
        if not options["repair"]:
            raise CommandError(f"{len(check.drifts)} document(s) out of step with the indexes (run with --repair)")
        repair = index_repair(check)
        self.stdout.write(
            f"repair: re-indexed {len(repair.reindexed)} document(s), removed {repair.removed_dense} dense "
            f"and {repair.removed_keyword} keyword entries"
        )
        for name in repair.failed:
            self.stderr.write(f"  re-indexing failed: {name}")
        after = index_check()
        self._report(after)
        if not after.clean:
            raise CommandError(f"{len(after.drifts)} document(s) still out of step after repair")

    def _report(self, check) -> None:  # noqa: ANN001
        self.stdout.write(
            f"live chunks {check.live_chunks}, dense entries {check.dense_entries}, "
            f"keyword entries {check.keyword_entries}: "
            + ("consistent" if check.clean else f"{len(check.drifts)} document(s) out of step")
        )
        for drift in check.drifts:
            name = (
                check.filenames.get(drift.document_id, "(deleted document)")
                if drift.document_id
                else "(deleted document)"
            )
            counts = drift.counts()
            parts = [f"{counts[key]} {label}" for key, label in KINDS if counts[key]]
            self.stdout.write(f"  {name}: " + ", ".join(parts))

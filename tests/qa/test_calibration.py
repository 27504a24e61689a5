"""Per-corpus calibration (qa.calibration, ``manage.py calibrate``) on a small corpus written here.

The corpus is none of the demo's documents: three short policies of an imaginary
company. The thresholds are measured on it, stored, shown in the admin, and used
by the next answers; after the live documents change they are measured again in
the background (qa.tasks), the previous ones answering meanwhile.
"""

from __future__ import annotations

from io import StringIO

import pytest
from django.conf import settings
from django.core.management import call_command

from django_tasks.base import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from documents.models import Document
from documents.services import document_delete
from qa.calibration import Measured, thresholds_from
from qa.decision import Calibration
from qa.models import Answer, CorpusCalibration
from qa.services import answer_question, applied_calibration, calibration_stale, current_calibration
from qa.tasks import calibrate_task
from tests.qa.conftest import calibrated

CORPUS = {
    "canteen.md": "# 社員食堂の案内\n## 営業時間\n社員食堂は平日の11時30分から14時まで営業します。\n"
    "## 支払い方法\n食事代は社員証のICカードで支払い、給与から差し引きます。\n",
    "bicycle.md": "# 自転車通勤規程\n## 駐輪場\n自転車通勤をする社員は、本社地下の駐輪場を無料で利用できます。\n"
    "## 保険\n自転車通勤には個人賠償責任保険への加入が必要です。\n",
    "library.md": "# 社内図書室の利用\n## 貸出期間\n図書室の本は1人5冊まで、2週間借りられます。\n"
    "## 返却\n返却は図書室の返却ボックスに入れてください。\n",
}

DEFAULTS = Calibration(off_topic_floor=0.84, english_floor=0.81, confident=0.88, medium=0.83, clarify_gap=0.03)


def _m(chunk: float, sentence: float) -> Measured:
    return Measured("q", chunk, sentence)


def test_the_floor_lies_between_off_topic_and_on_topic_and_high_above_every_off_topic_chunk() -> None:
    on = [_m(0.90, 0.92), _m(0.88, 0.90), _m(0.86, 0.88), _m(0.91, 0.93)]
    off = [_m(0.80, 0.78), _m(0.82, 0.80)]
    calibration = thresholds_from(on, off, DEFAULTS)
    assert 0.80 < calibration.off_topic_floor < 0.88
    assert calibration.confident > 0.82 and calibration.confident >= 0.885  # on-topic median
    assert 0.80 <= calibration.medium < calibration.confident
    assert (calibration.english_floor, calibration.clarify_gap, calibration.source) == (0.81, 0.03, "corpus")


def test_a_corpus_whose_off_topic_questions_come_close_gets_a_stricter_high() -> None:
    on = [_m(0.86, 0.90)] * 5
    near = thresholds_from(on, [_m(0.87, 0.80)], DEFAULTS)
    far = thresholds_from(on, [_m(0.78, 0.80)], DEFAULTS)
    assert near.confident > 0.87 > far.confident


def test_the_english_floor_turns_away_every_everyday_english_question_and_stays_below_medium() -> None:
    on = [_m(0.90, 0.92), _m(0.88, 0.90), _m(0.86, 0.88)]
    off = [_m(0.80, 0.78), _m(0.82, 0.80)]
    calibration = thresholds_from(on, off, DEFAULTS, english_off_topic=[_m(0.76, 0.7), _m(0.79, 0.7)])
    assert 0.79 < calibration.english_floor <= calibration.medium
    close = thresholds_from(on, off, DEFAULTS, english_off_topic=[_m(0.87, 0.7)])
    assert close.english_floor == close.medium


def test_an_unknown_word_must_beat_the_closest_sentence_any_off_topic_question_reached() -> None:
    on = [_m(0.90, 0.92), _m(0.88, 0.90), _m(0.86, 0.88)]
    calibration = thresholds_from(on, [_m(0.80, 0.78), _m(0.82, 0.851), _m(0.81, 0.80)], DEFAULTS)
    assert calibration.unknown_word_sentence == 0.851
    assert calibration.to_dict()["unknown_word_sentence"] == 0.851


def test_a_calibration_stored_before_the_unknown_word_sentence_gets_it_from_its_measurements() -> None:
    values = {"confident": 0.9, "medium": 0.85, "clarify_gap": 0.03}
    measurements = {"off_topic": [["明日の天気は？", 0.84, 0.83], ["カレーの作り方", 0.85, 0.857]]}
    assert applied_calibration(values, measurements=measurements).unknown_word_sentence == 0.857
    assert applied_calibration(values).unknown_word_sentence == 1.0  # nothing measured: the rule as before


def test_nothing_to_measure_is_an_error() -> None:
    with pytest.raises(ValueError):
        thresholds_from([], [_m(0.8, 0.8)], DEFAULTS)


@pytest.mark.django_db
def test_calibrate_measures_the_corpus_and_its_answers_use_it(ingest, employee, admin_user, client) -> None:
    for filename, text in CORPUS.items():
        ingest(text=text, filename=filename)
    out = StringIO()
    call_command("calibrate", stdout=out)
    assert "calibrated on 3 documents" in out.getvalue()

    stored = CorpusCalibration.objects.get()
    off_sentences = [row[2] for row in stored.measurements["off_topic"]]
    assert stored.values["off_topic_floor"] > max(off_sentences)
    applied = current_calibration()
    assert applied.source == "corpus"
    # Its 高/中 thresholds are applied; its measured floors are shown, not applied (qa.services.applied_calibration).
    assert (applied.confident, applied.medium) == (stored.values["confident"], stored.values["medium"])
    assert (applied.off_topic_floor, applied.english_floor) == (
        settings.RAG_OFF_TOPIC_SIMILARITY,
        settings.RAG_OFF_TOPIC_SIMILARITY_EN,
    )

    # The next answers use it: an off-topic question abstains, the corpus's own topic is answered.
    off = answer_question(user=employee, text="明後日の東京の天気はどうですか？").answer
    assert off.response_type == Answer.ResponseType.NOT_FOUND
    assert off.usage["decision"]["outcome"] == "not_found"
    on = answer_question(user=employee, text="図書室の本は何冊まで借りられますか？").answer
    assert on.response_type == Answer.ResponseType.ANSWER
    assert "5冊" in on.answer_text

    # Staff read it in the admin.
    client.force_login(admin_user)
    page = client.get("/admin/qa/corpuscalibration/")
    assert page.status_code == 200
    assert str(stored.values["off_topic_floor"]) in page.content.decode()
    # The sentence an unknown-word question must beat: the closest any off-topic question came, applied and shown.
    assert stored.values["unknown_word_sentence"] == round(max(off_sentences), 4)
    assert applied.unknown_word_sentence == stored.values["unknown_word_sentence"]
    assert str(stored.values["unknown_word_sentence"]) in page.content.decode()

    # The corpus changes (recalibration after indexing is off in the suite): the admin says the
    # calibration is stale, and it keeps answering until a new one is measured.
    ingest(text="# 休憩室\n## 利用時間\n休憩室は8時から20時まで使えます。\n", filename="lounge.md")
    assert calibration_stale(calibration=stored)
    assert current_calibration() == applied_calibration(stored.values)
    assert "再計測待ち" in client.get("/admin/qa/corpuscalibration/").content.decode()


HEADINGLESS = "休憩室の利用\n休憩室は8時から20時まで使えます。飲食もできます。\n"


@pytest.fixture
def recalibrating(settings, monkeypatch):
    """As in production: the database queue, recalibration after indexing on (the suite turns both off).

    No quiet moment before a calibration: the batch worker stops as soon as nothing is ready.
    """
    settings.RAG_CALIBRATE_AFTER_INDEXING = True
    settings.TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}
    monkeypatch.setattr("qa.tasks.DEFER_S", 0)
    return settings


def _work() -> None:
    """An indexing worker runs what is queued, then stops."""
    call_command("index_worker", "--batch", "--nice", "0", stdout=StringIO())


def _latest() -> CorpusCalibration:
    latest = CorpusCalibration.objects.first()
    assert latest is not None
    return latest


def _calibrations_run() -> list[str]:
    return list(DBTaskResult.objects.filter(task_path=calibrate_task.module_path).values_list("status", flat=True))


@pytest.mark.django_db
def test_calibration_follows_documents_going_live_and_being_deleted(recalibrating, ingest, admin_user, client) -> None:
    assert current_calibration().source == "settings"  # a fresh install: the documented defaults

    canteen = ingest(text=CORPUS["canteen.md"], filename="canteen.md")
    _work()
    assert _latest().documents == 1
    ingest(text=CORPUS["bicycle.md"], filename="bicycle.md")
    ingest(text=CORPUS["library.md"], filename="library.md")
    _work()
    measured = _latest()
    assert measured.documents == 3 and not calibration_stale(calibration=measured)
    assert current_calibration() == applied_calibration(measured.values)
    assert any("貸出期間" in row[0] for row in measured.measurements["on_topic"])  # its headings, asked

    # A new version goes live: until the worker has measured it, the previous calibration answers.
    ingest(
        text=CORPUS["library.md"] + "## 延長\n貸出は1回だけ1週間延長できます。\n",
        filename="library.md",
        document=Document.objects.get(filename="library.md"),
    )
    _work()
    revised = _latest()
    assert revised.pk != measured.pk and any("延長" in row[0] for row in revised.measurements["on_topic"])

    document_delete(document=canteen)
    assert calibration_stale(calibration=revised) and current_calibration().source == "corpus"
    _work()
    after_delete = _latest()
    assert after_delete.documents == 2 and not calibration_stale(calibration=after_delete)
    assert not any("営業時間" in row[0] for row in after_delete.measurements["on_topic"])
    assert _calibrations_run() == [TaskResultStatus.SUCCESSFUL] * 4  # once per change, once for the two uploads

    client.force_login(admin_user)
    page = client.get("/admin/qa/corpuscalibration/").content.decode()
    assert "使用中（現在の文書で計測）" in page and "過去の計測" in page


@pytest.mark.django_db
def test_a_calibration_that_fails_keeps_the_previous_one(recalibrating, ingest, admin_user, client) -> None:
    library = ingest(text=CORPUS["library.md"], filename="library.md")
    ingest(text=HEADINGLESS, filename="lounge.txt")
    _work()
    kept = _latest()
    assert kept.documents == 2

    # Only a document without headings is left: nothing to measure, the calibration measured before stays.
    document_delete(document=library)
    _work()
    assert _latest() == kept
    assert calibration_stale(calibration=kept)
    assert current_calibration() == applied_calibration(kept.values)
    client.force_login(admin_user)
    assert "再計測待ち" in client.get("/admin/qa/corpuscalibration/").content.decode()


@pytest.mark.django_db
def test_an_import_queued_for_the_worker_is_calibrated_once_after_its_last_document(recalibrating, ingest) -> None:
    for filename, text in CORPUS.items():
        ingest(text=text, filename=filename)  # queued for the worker, not indexed yet
    assert not CorpusCalibration.objects.exists()

    _work()

    assert set(Document.objects.values_list("status", flat=True)) == {Document.Status.READY}
    assert _latest().documents == 3 and CorpusCalibration.objects.count() == 1
    assert _calibrations_run() == [TaskResultStatus.SUCCESSFUL]


@pytest.mark.django_db
def test_a_recalibration_waits_for_documents_still_being_indexed(recalibrating, ingest) -> None:
    recalibrating.RAG_CALIBRATE_AFTER_INDEXING = False  # only the task run below
    library = ingest(text=CORPUS["library.md"], filename="library.md")
    _work()
    Document.objects.filter(pk=library.pk).update(status=Document.Status.INDEXING)  # as while a worker embeds it

    calibrate_task.call()

    assert not CorpusCalibration.objects.exists()
    waiting = DBTaskResult.objects.filter(task_path=calibrate_task.module_path, status=TaskResultStatus.READY)
    assert [row.args_kwargs["args"] for row in waiting] == [[1]]  # looked once, looks again later


@pytest.mark.django_db
def test_uploads_indexed_at_once_are_not_held_up_by_a_calibration(settings, ingest) -> None:
    """The immediate backend (tests, evaluation's throw-away portals) would calibrate inside the upload: it does not."""
    settings.RAG_CALIBRATE_AFTER_INDEXING = True
    ingest(text=CORPUS["library.md"], filename="library.md")
    assert Document.objects.get().status == Document.Status.READY
    assert not CorpusCalibration.objects.exists() and current_calibration().source == "settings"


@pytest.mark.django_db
def test_an_everyday_word_is_answered_when_a_sentence_beats_every_off_topic_question(ingest, employee) -> None:
    """「ママチャリ通勤の保険は？」: ママチャリ is in none of the documents (they say 自転車), nor in a synonym group. Held to a 中
    threshold no chunk reaches, the question is still answered because one sentence is closer to it than
    any of calibration's everyday off-topic questions came to this corpus; an off-topic question with an
    unknown word is not, and without that measurement the unknown word alone turns the question away."""
    for filename, text in CORPUS.items():
        ingest(text=text, filename=filename)
    stored = calibrated(medium=0.99)  # no chunk reaches 中: only the sentence rule can keep it

    answer = answer_question(user=employee, text="ママチャリ通勤の保険は？").answer
    assert answer.response_type == Answer.ResponseType.ANSWER, answer.usage["decision"]
    assert "個人賠償責任保険" in answer.answer_text
    assert answer.confidence != "high"  # below 中 on retrieval: never 高
    off = answer_question(user=employee, text="花粉症に効く薬は？").answer
    assert off.response_type == Answer.ResponseType.NOT_FOUND
    assert off.usage["decision"]["reasons"] == ["unknown_word"]

    stored.values = {**stored.values, "unknown_word_sentence": 1.0}  # as a corpus with nothing measured
    stored.save()
    again = answer_question(user=employee, text="ママチャリ通勤の保険は？").answer
    assert again.response_type == Answer.ResponseType.NOT_FOUND
    assert again.usage["decision"]["reasons"] == ["unknown_word"]


@pytest.mark.django_db
def test_calibrate_if_stale_measures_only_when_the_live_documents_changed(ingest) -> None:
    def calibrate() -> str:
        out = StringIO()
        call_command("calibrate", "--if-stale", stdout=out)
        return out.getvalue()

    # Nothing with headings to measure: said, not an error (load_demo and import_documents go on).
    ingest(text=HEADINGLESS, filename="lounge.txt")
    assert "not measured" in calibrate()
    assert not CorpusCalibration.objects.exists()

    for filename, text in CORPUS.items():
        ingest(text=text, filename=filename)
    assert "calibrated on 4 documents" in calibrate()
    first = _latest()
    assert "up to date" in calibrate()
    calibrate_task.call()  # the worker's recalibration, queued by the same change, finds nothing to do
    assert CorpusCalibration.objects.count() == 1

    document_delete(document=Document.objects.get(filename="library.md"))
    assert "calibrated on 3 documents" in calibrate()
    assert _latest().pk != first.pk and not calibration_stale(calibration=_latest())


@pytest.mark.django_db
def test_import_documents_measures_the_thresholds_on_what_it_made_live(owner, tmp_path) -> None:
    for filename, text in CORPUS.items():
        (tmp_path / filename).write_text(text, encoding="utf-8")
    out = StringIO()
    call_command("import_documents", str(tmp_path), "--owner", "owner", "--no-calibrate", stdout=out)
    assert not CorpusCalibration.objects.exists()

    (tmp_path / "lounge.md").write_text("# 休憩室\n## 利用時間\n休憩室は8時から20時まで使えます。\n", encoding="utf-8")
    call_command("import_documents", str(tmp_path), "--owner", "owner", stdout=out)
    assert "calibrated on 4 documents" in out.getvalue()
    assert current_calibration().source == "corpus" and not calibration_stale(calibration=_latest())

    # Nothing changed: nothing is measured again.
    call_command("import_documents", str(tmp_path), "--owner", "owner", stdout=StringIO())
    assert CorpusCalibration.objects.count() == 1

"""Per-corpus calibration (qa.calibration, ``manage.py calibrate``) on a small corpus written here.

The corpus is none of the demo's documents: three short policies of an imaginary
company. The thresholds are measured on it, stored, shown in the admin, and used
by the next answers until the corpus changes.
"""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

from qa.calibration import Measured, thresholds_from
from qa.decision import Calibration
from qa.models import Answer, CorpusCalibration
from qa.services import answer_question, current_calibration

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
    assert current_calibration().source == "corpus"

    # The next answers use it: an off-topic question abstains, the corpus's own topic is answered.
    off = answer_question(user=employee, text="明後日の東京の天気はどうですか？")
    assert off.response_type == Answer.ResponseType.NOT_FOUND
    assert off.usage["decision"]["outcome"] == "not_found"
    on = answer_question(user=employee, text="図書室の本は何冊まで借りられますか？")
    assert on.response_type == Answer.ResponseType.ANSWER
    assert "5冊" in on.answer_text

    # Staff read it in the admin.
    client.force_login(admin_user)
    page = client.get("/admin/qa/corpuscalibration/")
    assert page.status_code == 200
    assert str(stored.values["off_topic_floor"]) in page.content.decode()

    # The corpus changes: the stored calibration no longer describes it, settings apply until it is rerun.
    ingest(text="# 休憩室\n## 利用時間\n休憩室は8時から20時まで使えます。\n", filename="lounge.md")
    assert current_calibration().source == "settings"

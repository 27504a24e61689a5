"""``manage.py evaluate_support`` reports the three sets, and reads JHARS-shaped files."""

from __future__ import annotations

import io
import json
from pathlib import Path

from django.core.management import call_command

from qa.evaluation.support_calibration import judge, load_jhars, scores

ANSWER = {
    "id": "3/test-model",
    "reference": "有給休暇は入社6ヶ月後に10日付与される。申請は3日前までに行う。",
    "sentences": [
        "有給休暇は、入社から6ヶ月が経つと10日もらえます。",
        "有給休暇は入社6ヶ月後に20日付与されます。",
    ],
    "hallucinated": [False, True],
}


def test_jhars_answers_become_one_item_per_sentence(tmp_path: Path) -> None:
    path = tmp_path / "jhars.jsonl"
    path.write_text(json.dumps(ANSWER, ensure_ascii=False) + "\n", encoding="utf-8")
    items = load_jhars(path)
    assert [i.unsupported for i in items] == [False, True]
    assert scores(items, judge) == {
        "n": 2,
        "tp": 1,
        "fp": 0,
        "fn": 0,
        "tn": 1,
        "precision": 1.0,
        "recall": 1.0,
        "false_alarm": 0.0,
    }
    assert load_jhars(tmp_path / "absent.jsonl") == []


def test_command_prints_the_operating_point_and_curves_for_every_set(tmp_path: Path) -> None:
    path = tmp_path / "jhars.jsonl"
    path.write_text(json.dumps(ANSWER, ensure_ascii=False) + "\n", encoding="utf-8")
    out = io.StringIO()
    call_command("evaluate_support", no_meaning=True, jhars=path, stdout=out)
    text = out.getvalue()
    for line in ("== at the operating point", "own/dev", "own/holdout", "jhars", "quotes", "== curves =="):
        assert line in text, line

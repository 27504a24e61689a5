"""``manage.py load_test``: the measurement lives in :mod:`qa.evaluation.load_test`."""

from __future__ import annotations

from qa.evaluation.load_test import Command

__all__ = ["Command"]

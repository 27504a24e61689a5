"""``manage.py benchmark_api``: the measurement lives in :mod:`qa.evaluation.benchmark_api`."""

from __future__ import annotations

from qa.evaluation.benchmark_api import Command

__all__ = ["Command"]

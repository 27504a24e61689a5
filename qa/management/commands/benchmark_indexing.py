"""``manage.py benchmark_indexing``: the measurement lives in :mod:`qa.evaluation.benchmark_indexing`."""

from __future__ import annotations

from qa.evaluation.benchmark_indexing import Command

__all__ = ["Command"]

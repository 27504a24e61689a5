"""``manage.py benchmark_retrieval``: the measurement lives in :mod:`qa.evaluation.benchmark_retrieval`."""

from __future__ import annotations

from qa.evaluation.benchmark_retrieval import Command

__all__ = ["Command"]

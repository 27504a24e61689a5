"""Evaluation, benchmarks and load tests: measuring the portal, never part of serving it.

No runtime module imports this package (tests/test_architecture.py checks it);
the management commands that run these measurements are thin wrappers around it.

- ``evaluate``: retrieval on a JSONL corpus over a throw-away index, every search mode;
- ``answers``: that corpus's questions asked through the answering service (``evaluate --answers``);
- ``golden``: the demo golden questions through the answering service (``evaluate_portal``);
- ``portal``: the throw-away portal both build (test database, temporary Chroma directory);
- ``scoring``: answer keys and the reliability table;
- ``benchmark_api`` (with ``stream_benchmark`` and the ``fake_clouds`` it streams from), ``benchmark_retrieval``,
  ``benchmark_indexing``, ``load_test``: speed;
- ``search_hits``: hit@k of questions against the portal as loaded; ``keyword_parity``: FTS5 vs PostgreSQL keyword hit@k;
- ``measure_extractive``, ``verification_bench``, ``support_calibration``: the provider and the checks alone.
"""

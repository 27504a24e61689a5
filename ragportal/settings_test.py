"""Settings for the test suite: the real settings, pointed at a throw-away data directory.

Environment defaults are set before the real settings are read, so tests never
touch ``var/`` and never see a developer's cloud keys.
"""

from __future__ import annotations

import os
import tempfile

os.environ.setdefault("SECRET_KEY", "test-secret-key")
os.environ["RAGPORTAL_DATA_DIR"] = tempfile.mkdtemp(prefix="ragportal-test-")
# whitenoise serves STATIC_ROOT; the suite collects nothing into it (the live server
# serves the apps' own files), so it is there and empty rather than warned about.
os.mkdir(os.path.join(os.environ["RAGPORTAL_DATA_DIR"], "static"))
os.environ["RAG_PROVIDER"] = "extractive"
os.environ["RAG_HTTPS"] = "0"  # the test client and the live server speak plain HTTP
# Indexing finishes inside the call that queues it; tests/documents/test_worker.py runs the real worker.
os.environ["TASKS_BACKEND"] = "django_tasks.backends.immediate.ImmediateBackend"
# ... and would recalibrate after every upload: the thresholds stay the settings' unless a test calibrates.
os.environ["RAG_CALIBRATE_AFTER_INDEXING"] = "0"
# ... and would embed every upload's sentences again in the background: a test that wants it turns it on.
os.environ["RAG_SENTENCE_VECTORS_AFTER_INDEXING"] = "0"
for _key in (
    "ANTHROPIC_API_KEY",
    "GEMINI_API_KEY",
    "ANTHROPIC_BASE_URL",
    "GEMINI_BASE_URL",
    "DATABASE_URL",
    "CHROMA_HOST",
    "RAG_STATIC_MANIFEST",
):
    os.environ.pop(_key, None)

from ragportal.settings import *  # noqa: E402

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

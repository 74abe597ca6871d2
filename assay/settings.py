"""Django settings for Assay, read from the environment (see assay/env.py and the README)."""

import os
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from .env import (
    BASE_DIR,
    env_bool,
    env_int,
    env_list,
    env_str,
    local_secret_key,
    private_dir,
    private_file,
)
from .safety.outbound import outbound_policy

ASSAY_ENV = env_str("ASSAY_ENV", "development")
if ASSAY_ENV not in {"development", "production"}:
    raise ImproperlyConfigured(
        f"ASSAY_ENV must be 'development' or 'production', not {ASSAY_ENV!r}"
    )
PRODUCTION = ASSAY_ENV == "production"

DATA_DIR = Path(env_str("ASSAY_DATA_DIR", str(BASE_DIR / "var")))
private_dir(DATA_DIR)  # database, broker messages, media and the secret key live here

SECRET_KEY = env_str("SECRET_KEY")
if not SECRET_KEY:
    if PRODUCTION:
        raise ImproperlyConfigured("SECRET_KEY is required when ASSAY_ENV=production")
    SECRET_KEY = local_secret_key(DATA_DIR)
ASSAY_SECRETS_KEY = env_str("ASSAY_SECRETS_KEY", SECRET_KEY)

DEBUG = env_bool("DEBUG", not PRODUCTION)
# Django's traceback page lists the request's environment and the settings: with DEBUG on it is
# shown (to local addresses) only when asked for; otherwise a 500 is the plain error page.
ASSAY_DEBUG_TRACEBACKS = DEBUG and env_bool("ASSAY_DEBUG_TRACEBACKS", False)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost"] if PRODUCTION else ["*"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "axes",
    "assay",
    "evaluators",
    "evalsets",
    "experiments",
    "notifications",
    "traces",
    "online",
    "schedules",
    "imports",
    "annotation",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # before the session and CSRF middleware: it sees the cookies they set on the way out
    "assay.safety.headers.SecureCookiesMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # a signed-in user's saved language over the cookie and Accept-Language (LocaleMiddleware)
    "assay.web.language.UserLanguageMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "assay.safety.headers.SecurityHeadersMiddleware",
    "assay.safety.headers.LocalDebugMiddleware",
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "assay.urls"
WSGI_APPLICATION = "assay.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "assay.web.context.workspace",
            ],
        },
    },
]

DATABASE_URL = env_str("DATABASE_URL")
if DATABASE_URL:
    DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_max_age=60)}
else:
    private_file(DATA_DIR / "assay.sqlite3")  # SQLite gives its -wal/-shm files the same mode
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": DATA_DIR / "assay.sqlite3",
            # WAL lets the worker write while the web process reads; a busy timeout rather than
            # "database is locked" errors when both write at once.
            "OPTIONS": {
                "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
                "timeout": 20,
                "transaction_mode": "IMMEDIATE",
            },
            # A file, not memory: the in-process worker thread then shares the test database
            # with WAL and the busy timeout instead of shared-cache table locks.
            # One file per test process, so two test sessions never share (or delete) it.
            "TEST": {"NAME": str(DATA_DIR / f"test-assay-{os.getpid()}.sqlite3")},
        }
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",  # refuses sign-ins while a lockout holds
    "django.contrib.auth.backends.ModelBackend",
]
# Login throttling: 10 failures for one username from one address lock that pair out for
# 15 minutes (other users, and the same user elsewhere, are unaffected).
AXES_FAILURE_LIMIT = 10
AXES_COOLOFF_TIME = timedelta(minutes=15)
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "registration/locked.html"
AXES_VERBOSE = False

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

# The interface language: the user's saved choice, else the language cookie (set by the nav's
# switch), else the browser's Accept-Language (zh, zh-CN and zh-SG fall back to zh-hans).
# Catalogues: locale/<lang>/LC_MESSAGES/*.po, compiled at set-up (docs/i18n.md).
LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("zh-hans", "简体中文")]
LOCALE_PATHS = [BASE_DIR / "locale"]
LANGUAGE_COOKIE_AGE = 365 * 24 * 3600  # a choice made before signing in outlives the session
LANGUAGE_COOKIE_SAMESITE = "Lax"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
# An image keeps its collected files outside the data volume, so an upgrade's new files are not
# hidden by the volume's old copy.
STATIC_ROOT = Path(env_str("STATIC_ROOT", str(DATA_DIR / "staticfiles")))
STATIC_ROOT.mkdir(parents=True, exist_ok=True)
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "assay.web.staticfiles.StaticFilesStorage"
        if PRODUCTION
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}
MEDIA_URL = "media/"
MEDIA_ROOT = Path(env_str("MEDIA_ROOT", str(DATA_DIR / "media")))

# Secure cookies only where the site is served over HTTPS: forced on plain HTTP (a LAN address)
# the browser drops them and sign-in fails without a word. ASSAY_HTTPS=1 says every request
# comes over HTTPS; behind a TLS proxy that sets X-Forwarded-Proto (and strips a client's),
# ASSAY_TRUST_FORWARDED_PROTO=1 makes such requests secure, and their cookies Secure
# (assay.safety.headers.SecureCookiesMiddleware).
ASSAY_HTTPS = env_bool("ASSAY_HTTPS", False)
ASSAY_TRUST_FORWARDED_PROTO = env_bool("ASSAY_TRUST_FORWARDED_PROTO", False)
if ASSAY_TRUST_FORWARDED_PROTO:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", ASSAY_HTTPS)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", ASSAY_HTTPS)
# Form and JSON bodies (files aside): big enough for a 5,000-row bulk call, small enough that
# one request cannot hold a worker's memory.
DATA_UPLOAD_MAX_MEMORY_SIZE = 32 * 1024 * 1024
SESSION_COOKIE_HTTPONLY = True
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
# HSTS is sent on HTTPS responses in production (a year; off in development).
SECURE_HSTS_SECONDS = env_int("ASSAY_HSTS_SECONDS", 31_536_000 if PRODUCTION else 0)
DEFAULT_EXCEPTION_REPORTER_FILTER = "assay.safety.headers.SecretsReporterFilter"

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "assay.api.auth.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["assay.api.permissions.WorkspaceRolePermission"],
    "DEFAULT_PAGINATION_CLASS": "assay.api.pagination.Pagination",
    "PAGE_SIZE": 50,
    "EXCEPTION_HANDLER": "assay.api.errors.exception_handler",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": [
        "assay.api.parsers.JSONObjectParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Assay API",
    "DESCRIPTION": (
        "Build, debug and run evaluators for LLM applications.\n\n"
        "**Authentication**: send an API token (Settings → API tokens) as "
        "`Authorization: Bearer <token>` (or `Token <token>`); it acts as its user inside its "
        "own workspace. A signed-in browser session works too, and chooses the workspace with "
        "`X-Assay-Workspace: <slug>` or `?workspace=<slug>`.\n\n"
        "**Roles**: every member reads; editors create and change evaluators, evaluation sets "
        "and experiments; owners manage members, secrets and model providers. A call your "
        "role does not allow gets 403.\n\n"
        "**Ids** are the `id` values the API returns; an id of another workspace is 404.\n\n"
        '**Errors** share one body, `{"error": {"code", "message", "details"}}`, '
        "where a 400's `details` names every field at fault; nothing is half-saved.\n\n"
        "**Lists** are paginated with `page` and `page_size` (50 by default, at most 500)."
    ),
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    "PREPROCESSING_HOOKS": ["assay.api.schema.without_bare_twins"],
    # one name for each shared choice set, wherever a field uses it
    "ENUM_NAME_OVERRIDES": {
        "VerdictEnum": "assay.vocabulary.Verdict",
        "ResultStatusEnum": "assay.vocabulary.ResultStatus",
        "ExperimentStatusEnum": "experiments.models.ExperimentStatus",
        "RowChangeEnum": "experiments.serializers.ROW_CHANGES",
    },
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "assay.api.schema.tag_by_area",
    ],
    "TAGS": [
        {"name": "evaluators", "description": "Evaluators, their versions, debug runs."},
        {"name": "evalsets", "description": "Evaluation sets, items, versions, imports."},
        {"name": "experiments", "description": "Runs, results, exports, the CI gate, garak."},
        {"name": "compare", "description": "Paired comparison of runs."},
        {"name": "traces", "description": "Production traces and their spans, as stored."},
        {"name": "online", "description": "Online evaluation: rules that score live traffic."},
        {"name": "annotation", "description": "Human review: score configs, queues, labels."},
        {"name": "imports", "description": "Importing OpenAI Evals, promptfoo and datasets."},
        {
            "name": "settings",
            "description": "Workspaces, members, tokens, ingest keys, secrets, providers.",
        },
    ],
}

# Celery. Without REDIS_URL the broker is kombu's filesystem transport: no server needed.
REDIS_URL = env_str("REDIS_URL")
BROKER_DIR = DATA_DIR / "broker"
if REDIS_URL:
    CELERY_BROKER_URL = REDIS_URL
    CELERY_RESULT_BACKEND = REDIS_URL
else:
    BROKER_DIR.mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_URL = "filesystem://"
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(BROKER_DIR),
        "data_folder_out": str(BROKER_DIR),
        "processed_folder": str(BROKER_DIR / "processed"),
        "control_folder": str(BROKER_DIR / "control"),  # not ./control in the checkout
        "store_processed": False,
    }
    CELERY_RESULT_BACKEND = None
CELERY_TASK_DEFAULT_QUEUE = "default"
CELERY_TASK_QUEUES_NAMES = ["default", "code", "llm"]
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_TIME_LIMIT = env_int("ASSAY_TASK_TIME_LIMIT", 1800)
CELERY_TASK_SOFT_TIME_LIMIT = max(CELERY_TASK_TIME_LIMIT - 30, 30)
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_ROUTES = {
    "assay.tasks.ping": {"queue": "default"},
    "assay.tasks.worker_heartbeat": {"queue": "default"},
    "experiments.tasks.*": {"queue": "default"},
}
ASSAY_EXPERIMENT_STALE_S = env_int("ASSAY_EXPERIMENT_STALE_S", 120)
ASSAY_CHUNK_MAX_ATTEMPTS = env_int("ASSAY_CHUNK_MAX_ATTEMPTS", 5)
ASSAY_CHUNK_LEASE_S = env_int("ASSAY_CHUNK_LEASE_S", 60)
ASSAY_DISPATCH_AHEAD = env_int("ASSAY_DISPATCH_AHEAD", 2)
# A worker's pool (celery's own default is the CPU count) and what one workspace may hold of
# it: no more than fills the pool, so none of its chunks waits in the broker ahead of another
# workspace's (docs/design/experiments.md, Fair dispatch).
ASSAY_WORKER_CONCURRENCY = env_int("ASSAY_WORKER_CONCURRENCY", os.cpu_count() or 2)
CELERY_WORKER_CONCURRENCY = ASSAY_WORKER_CONCURRENCY
ASSAY_WORKSPACE_MAX_CHUNKS = env_int("ASSAY_WORKSPACE_MAX_CHUNKS", ASSAY_WORKER_CONCURRENCY)
ASSAY_REAPER_INTERVAL_S = env_int("ASSAY_REAPER_INTERVAL_S", 30)
# Workers beat by running a task (assay.models.WorkerBeat); older than STALE, none is live.
ASSAY_WORKER_HEARTBEAT_S = env_int("ASSAY_WORKER_HEARTBEAT_S", 15)
ASSAY_WORKER_STALE_S = env_int("ASSAY_WORKER_STALE_S", 90)
# Online evaluation: how often each active rule looks at the spans stored since its last look,
# and how far behind now it stops (a storing transaction still open would otherwise be missed).
ASSAY_ONLINE_SWEEP_S = env_int("ASSAY_ONLINE_SWEEP_S", 15)
ASSAY_ONLINE_SWEEP_LAG_S = env_int("ASSAY_ONLINE_SWEEP_LAG_S", 10)
# Annotation: how often queues that follow an online rule or an experiment take their new items.
ASSAY_ANNOTATION_FEED_S = env_int("ASSAY_ANNOTATION_FEED_S", 60)
# Webhooks: how long a receiver has to answer a delivery (then it is retried later).
ASSAY_WEBHOOK_TIMEOUT_S = 10.0
CELERY_BEAT_SCHEDULE: dict = {
    "worker-heartbeat": {
        "task": "assay.tasks.worker_heartbeat",
        "schedule": float(ASSAY_WORKER_HEARTBEAT_S),
        # a beat nobody ran in time says nothing: dropped, not piled up for a late worker
        "options": {"expires": float(ASSAY_WORKER_HEARTBEAT_S)},
    },
    "reap-stale-experiments": {
        "task": "experiments.tasks.reap_stale",
        "schedule": float(ASSAY_REAPER_INTERVAL_S),
    },
    "resume-stalled-commits": {
        "task": "evalsets.tasks.resume_commits",
        "schedule": float(ASSAY_REAPER_INTERVAL_S),
    },
    "resume-imports": {
        "task": "imports.tasks.resume_imports",
        "schedule": float(ASSAY_REAPER_INTERVAL_S),
    },
    "resume-span-batches": {
        "task": "traces.tasks.resume_batches",
        "schedule": float(ASSAY_REAPER_INTERVAL_S),
    },
    "trace-retention": {"task": "traces.tasks.apply_retention", "schedule": 3600.0},
    "online-sweep": {
        "task": "online.tasks.sweep_rules",
        "schedule": float(ASSAY_ONLINE_SWEEP_S),
        # a sweep nobody ran in time is not worth running late: the next one covers its spans
        "options": {"expires": float(ASSAY_ONLINE_SWEEP_S)},
    },
    "online-alerts": {
        "task": "online.tasks.evaluate_alerts",
        # each alert goes on from the last window it decided: a late beat adds nothing
        "schedule": 120.0,
        "options": {"expires": 120.0},
    },
    "webhook-deliveries": {
        "task": "notifications.tasks.sweep_deliveries",
        # due deliveries no task took (long retries, lost messages); a late sweep adds
        # nothing: the next one finds every delivery still due
        "schedule": 30.0,
        "options": {"expires": 30.0},
    },
    "annotation-feeds": {
        "task": "annotation.tasks.sweep_feeds",
        "schedule": float(ASSAY_ANNOTATION_FEED_S),
        # a late sweep adds nothing the next one would not: each feed goes on from its cursor
        "options": {"expires": float(ASSAY_ANNOTATION_FEED_S)},
    },
    "experiment-schedules": {
        "task": "schedules.tasks.run_schedules",
        "schedule": 60.0,
        # a late beat adds nothing: the next one launches what is due (a missed time once)
        "options": {"expires": 60.0},
    },
}
# Traces (OTLP/HTTP at /otlp/v1/traces): the body as sent and once inflated, the spans one
# request may bring (the rest are refused in partial_success), the batches a workspace may have
# waiting for a worker (then 429 with Retry-After), and the days spans are kept.
ASSAY_OTLP_MAX_BODY_BYTES = env_int("ASSAY_OTLP_MAX_BODY_BYTES", 8 * 1024 * 1024)
ASSAY_OTLP_MAX_DECODED_BYTES = env_int("ASSAY_OTLP_MAX_DECODED_BYTES", 32 * 1024 * 1024)
ASSAY_OTLP_MAX_SPANS = env_int("ASSAY_OTLP_MAX_SPANS", 10_000)
ASSAY_OTLP_MAX_QUEUED_BATCHES = env_int("ASSAY_OTLP_MAX_QUEUED_BATCHES", 2_000)
# Spans a workspace may send a second, on average, and at once (then 429 with Retry-After);
# 0 turns the limit off. Counted in Redis when there is one, in the process otherwise.
ASSAY_OTLP_SPANS_PER_SECOND = env_int("ASSAY_OTLP_SPANS_PER_SECOND", 50_000)
ASSAY_OTLP_SPANS_BURST = env_int("ASSAY_OTLP_SPANS_BURST", 100_000)
ASSAY_TRACE_RETENTION_DAYS = env_int("ASSAY_TRACE_RETENTION_DAYS", 30)
# Evalset commits of more rows than this copy in the background, this many rows a batch.
ASSAY_COMMIT_INLINE_ROWS = env_int("ASSAY_COMMIT_INLINE_ROWS", 20_000)
ASSAY_COMMIT_BATCH_ROWS = env_int("ASSAY_COMMIT_BATCH_ROWS", 50_000)
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True

LOG_LEVEL = env_str("ASSAY_LOG_LEVEL", "INFO")
HTTP_CLIENT_LOGGERS = ("httpx", "httpcore", "httpx2", "httpcore2", "aiohttp")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"redact": {"()": "assay.safety.redact.RedactSecretsFilter"}},
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {
        "console": {"class": "logging.StreamHandler", "formatter": "plain", "filters": ["redact"]}
    },
    "root": {"handlers": ["console"], "level": "WARNING"},
    "loggers": {
        "assay": {"level": LOG_LEVEL},
        "evaluators": {"level": LOG_LEVEL},
        "evalsets": {"level": LOG_LEVEL},
        "experiments": {"level": LOG_LEVEL},
        # HTTP clients log every request at INFO, URL included: that is row data of HTTP
        # targets, and in a worker run at --loglevel INFO a line per call costs real CPU.
        **{name: {"level": "WARNING"} for name in HTTP_CLIENT_LOGGERS},
    },
}

# Imports from other tools (`/imports/`) whose files are larger than this in all run on a
# worker; smaller ones in the request (a 1 MB OpenAI eval of 5,000 rows takes about 2 s).
ASSAY_IMPORT_INLINE_BYTES = env_int("ASSAY_IMPORT_INLINE_BYTES", 1024 * 1024)
ASSAY_EVALSET_MAX_IMPORT_BYTES = env_int("ASSAY_EVALSET_MAX_IMPORT_BYTES", 512 * 1024 * 1024)
ASSAY_EVALSET_MAX_MEDIA_BYTES = env_int("ASSAY_EVALSET_MAX_MEDIA_BYTES", 25 * 1024 * 1024)
# A rows file (`assay run --rows`) is imported and committed inside the request.
ASSAY_EVALSET_MAX_ROWS_FILE_BYTES = env_int("ASSAY_EVALSET_MAX_ROWS_FILE_BYTES", 64 * 1024 * 1024)
ASSAY_REQUIRE_NETNS = env_bool("ASSAY_REQUIRE_NETNS", PRODUCTION)
ASSAY_OUTBOUND_ALLOW = env_str("ASSAY_OUTBOUND_ALLOW", "public" if PRODUCTION else "*")
ASSAY_TARGET_MAX_BYTES = env_int("ASSAY_TARGET_MAX_BYTES", 4 * 1024 * 1024)
# A garak import: the report's size, and what one file may make (each probe is an evalset
# version and a launched run; each output a row).
ASSAY_GARAK_MAX_REPORT_BYTES = env_int("ASSAY_GARAK_MAX_REPORT_BYTES", 64 * 1024 * 1024)
ASSAY_GARAK_MAX_PROBES = env_int("ASSAY_GARAK_MAX_PROBES", 50)
ASSAY_GARAK_MAX_ATTEMPTS = env_int("ASSAY_GARAK_MAX_ATTEMPTS", 100_000)
ASSAY_GARAK_MAX_OUTPUTS = env_int("ASSAY_GARAK_MAX_OUTPUTS", 500_000)
try:
    outbound_policy(ASSAY_OUTBOUND_ALLOW)
except ValueError as exc:
    raise ImproperlyConfigured(str(exc)) from None
ASSAY_CHROMIUM = env_str("ASSAY_CHROMIUM", "/usr/bin/chromium")

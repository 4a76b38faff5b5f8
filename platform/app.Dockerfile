# The platform's own image (web and workers). Production pulls a Python base; on the dev
# machines here nothing is pulled: `make run` runs the same processes from .venv instead.
FROM python:3.11-slim-bookworm
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 ONSITE_VAR_DIR=/var/lib/onsite
RUN apt-get update && apt-get install -y --no-install-recommends docker.io nodejs npm \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY requirements.txt .
RUN pip install --no-cache-dir -r requirements.txt
COPY frontend/package.json frontend/package-lock.json frontend/
RUN cd frontend && npm ci --no-audit --no-fund
COPY . .
RUN cd frontend && node build.mjs && cd .. && python manage.py collectstatic --noinput -v 0
RUN useradd --system --uid 10001 onsite && mkdir -p /var/lib/onsite && chown onsite /var/lib/onsite
USER onsite
EXPOSE 8000
CMD ["daphne", "-b", "0.0.0.0", "-p", "8000", "config.asgi:application"]

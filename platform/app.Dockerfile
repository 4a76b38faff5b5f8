# The platform's own image: web (daphne), workers (celery) and beat all run it.
# Built by platform/prod/images.py, which prepares the context (the working tree, the editor
# bundle built by `make setup`, and wheels/: requirements.txt downloaded on the host) and picks
# BASE: Docker Hub's debian:bookworm-slim, or the project's debootstrap base where no registry
# answers. Both are Debian bookworm, whose python3 is the 3.11 the project pins.
ARG BASE=debian:bookworm-slim

FROM ${BASE} AS deps
RUN apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
      --no-install-recommends python3 python3-venv >/dev/null \
    && rm -rf /var/lib/apt/lists/*
COPY requirements.txt /tmp/requirements.txt
COPY wheels/ /tmp/wheels/
# Only the host's wheelhouse: nothing is fetched from an index inside the build.
RUN python3 -m venv /opt/venv \
    && /opt/venv/bin/pip install --quiet --no-cache-dir --no-index --disable-pip-version-check \
       --find-links /tmp/wheels -r /tmp/requirements.txt

FROM ${BASE}
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 ONSITE_VAR_DIR=/var/lib/onsite \
    PATH=/opt/venv/bin:/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8
RUN apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
      --no-install-recommends python3 ca-certificates passwd >/dev/null \
    && rm -rf /var/lib/apt/lists/*
COPY --from=deps /opt/venv /opt/venv
WORKDIR /app
COPY . /app
RUN rm -rf /app/wheels /app/Dockerfile \
    && DJANGO_SECRET_KEY=collectstatic python manage.py collectstatic --noinput -v 0 \
    && /usr/sbin/useradd --system --uid 10001 --home-dir /var/lib/onsite onsite \
    && mkdir -p /var/lib/onsite && chown -R onsite /var/lib/onsite
# Web processes run unprivileged; workers (compose: user root) talk to the host's Docker engine.
USER onsite
EXPOSE 8000
CMD ["daphne", "-b", "127.0.0.1", "-p", "8000", "config.web:application"]

# nginx from Debian: the reverse proxy in front of the web processes (HTTP and websockets).
# BASE: see platform/prod/images.py. The upstreams come from the environment at start.
ARG BASE=debian:bookworm-slim
FROM ${BASE}
RUN apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
      --no-install-recommends nginx-light gettext-base >/dev/null \
    && rm -rf /var/lib/apt/lists/* /etc/nginx/sites-enabled/*
COPY nginx.conf.template /etc/nginx/onsite.conf.template
COPY nginx-entrypoint.sh /usr/local/bin/nginx-entrypoint.sh
ENTRYPOINT ["sh", "/usr/local/bin/nginx-entrypoint.sh"]

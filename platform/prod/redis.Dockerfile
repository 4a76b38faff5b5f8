# Redis from Debian (the channel layer and Celery's broker). BASE: see platform/prod/images.py.
ARG BASE=debian:bookworm-slim
FROM ${BASE}
RUN apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
      --no-install-recommends redis-server >/dev/null \
    && rm -rf /var/lib/apt/lists/* && mkdir -p /data && chown redis:redis /data
COPY redis.conf /etc/onsite-redis.conf
USER redis
WORKDIR /data
# The address and port are arguments (compose passes them): 127.0.0.1 on a single host.
ENTRYPOINT ["redis-server", "/etc/onsite-redis.conf"]
CMD ["--bind", "127.0.0.1", "--port", "6379"]

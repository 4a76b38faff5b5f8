# PostgreSQL 15 from Debian. BASE: see platform/prod/images.py. The entrypoint makes the
# cluster on first start from POSTGRES_USER / POSTGRES_PASSWORD / POSTGRES_DB.
ARG BASE=debian:bookworm-slim
FROM ${BASE}
RUN apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
      --no-install-recommends postgresql-15 >/dev/null \
    && rm -rf /var/lib/apt/lists/* \
    && mkdir -p /var/lib/postgresql/data /run/postgresql \
    && chown -R postgres:postgres /var/lib/postgresql /run/postgresql
COPY postgres-entrypoint.sh /usr/local/bin/postgres-entrypoint.sh
ENV PATH=/usr/lib/postgresql/15/bin:/usr/local/bin:/usr/bin:/bin PGDATA=/var/lib/postgresql/data
USER postgres
ENTRYPOINT ["sh", "/usr/local/bin/postgres-entrypoint.sh"]

#!/bin/sh
# First start: make the cluster (password auth for every TCP client), the role and the
# database. Every start: run postgres in the foreground on POSTGRES_LISTEN:POSTGRES_PORT.
set -eu
: "${POSTGRES_USER:=onsite}" "${POSTGRES_DB:=onsite}" "${POSTGRES_PASSWORD:?set POSTGRES_PASSWORD}"
: "${POSTGRES_LISTEN:=*}" "${POSTGRES_PORT:=5432}"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  pwfile=$(mktemp)
  printf '%s\n' "$POSTGRES_PASSWORD" > "$pwfile"
  initdb -D "$PGDATA" -U "$POSTGRES_USER" --pwfile="$pwfile" --auth-local=trust \
    --auth-host=scram-sha-256 -E UTF8 --locale=C.UTF-8 >/dev/null
  rm -f "$pwfile"
  echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
  pg_ctl -D "$PGDATA" -o "-c listen_addresses='' -p $POSTGRES_PORT" -w start >/dev/null
  if [ "$POSTGRES_DB" != postgres ]; then
    createdb -p "$POSTGRES_PORT" -U "$POSTGRES_USER" -O "$POSTGRES_USER" "$POSTGRES_DB"
  fi
  pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
fi
exec postgres -D "$PGDATA" -c listen_addresses="$POSTGRES_LISTEN" -p "$POSTGRES_PORT"

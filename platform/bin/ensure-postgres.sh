#!/usr/bin/env bash
# Start this machine's PostgreSQL cluster if it is down, and make the `onsite` role and database
# (the test runner creates test_onsite from it).
set -euo pipefail
if ! command -v pg_lsclusters >/dev/null 2>&1; then
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "[postgres] PostgreSQL is not installed (apt-get install postgresql)" >&2
    exit 1
  fi
  echo "[postgres] installing postgresql…" >&2
  apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q postgresql >/dev/null
fi
if [ -z "$(pg_lsclusters --no-header)" ]; then
  # A fresh install without a cluster: make one with the newest server installed.
  pg_createcluster "$(ls /usr/lib/postgresql | sort -V | tail -n 1)" main >/dev/null
fi
read -r version cluster _ < <(pg_lsclusters --no-header | head -n 1)
if ! pg_lsclusters --no-header | head -n 1 | grep -q online; then
  pg_ctlcluster "$version" "$cluster" start
fi
su postgres -c "psql -tAc \"SELECT 1 FROM pg_roles WHERE rolname='onsite'\"" | grep -q 1 \
  || su postgres -c "psql -c \"CREATE ROLE onsite LOGIN CREATEDB PASSWORD 'onsite'\""
su postgres -c "psql -tAc \"SELECT 1 FROM pg_database WHERE datname='onsite'\"" | grep -q 1 \
  || su postgres -c "createdb -O onsite onsite"

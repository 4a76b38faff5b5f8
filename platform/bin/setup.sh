#!/usr/bin/env bash
# Build everything the platform needs; each step is skipped when its inputs did not change.
#   setup.sh            the virtualenv, the frontend bundle, Docker, the sandbox images
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
VAR=${ONSITE_VAR_DIR:-$ROOT/var}
mkdir -p "$VAR/stamps"
log() { echo "[setup] $*" >&2; }

# Run a step only when the hash of its inputs changed since it last succeeded.
stamp_ok() { [ -f "$VAR/stamps/$1" ] && [ "$(cat "$VAR/stamps/$1")" = "$2" ]; }
stamp_set() { echo "$2" > "$VAR/stamps/$1"; }
hash_of() { cat "$@" 2>/dev/null | sha256sum | cut -c1-16; }

bash platform/bin/ensure-packages.sh

# 1. Python virtualenv with the pinned dependencies.
PY=${PYTHON:-/usr/bin/python3}
[ -x "$PY" ] || PY=python3
h=$(hash_of requirements.txt)
if [ ! -x .venv/bin/python ] || ! stamp_ok venv "$h"; then
  log "virtualenv (.venv) from requirements.txt…"
  [ -x .venv/bin/python ] || "$PY" -m venv .venv
  links=()
  [ -d /opt/wheels ] && links=(--find-links /opt/wheels)  # the local CPU build of torch
  .venv/bin/pip install -q --disable-pip-version-check "${links[@]}" -r requirements.txt
  stamp_set venv "$h"
fi

# 2. The editor bundle (esbuild, from the committed lockfile).
h=$(hash_of frontend/package-lock.json frontend/build.mjs $(find frontend/js -type f | sort))
if [ ! -f frontend/static/frontend/bundle.js ] || [ ! -f frontend/static/frontend/studio.js ] \
    || [ ! -f frontend/static/frontend/board.js ] || [ ! -d frontend/static/frontend/fonts ] \
    || [ ! -f frontend/static/frontend/axe.min.js ] \
    || ! stamp_ok bundle "$h"; then
  log "frontend bundle (npm ci + esbuild)…"
  (cd frontend && npm ci --no-audit --no-fund --loglevel=error && node build.mjs)
  stamp_set bundle "$h"
fi

# 3. A Docker engine, then the sandbox images (tagged by a hash of their recipe).
bash platform/bin/ensure-docker.sh
for flavor in cpu gpu; do
  .venv/bin/python -m sandbox.image ensure --flavor "$flavor" >/dev/null
done
bash platform/bin/ensure-docker.sh verify-crun "$(.venv/bin/python -m sandbox.image ensure --flavor cpu)"
log "ready"

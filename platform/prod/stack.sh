#!/usr/bin/env bash
# The production stack on this machine (host networking, every service on 127.0.0.1):
#   stack.sh up     build the images whose recipe changed, start, wait until healthy, print URL
#                   (HTTPS: the certificate is ONSITE_TLS_CERT_FILE / ONSITE_TLS_KEY_FILE, else a
#                   self-signed one made under var/prod/tls)
#   stack.sh down   stop and remove every container of the stack (volumes are kept)
#   stack.sh ps     docker-compose ps
#   stack.sh env    the variables docker-compose needs (eval "$(stack.sh env)" to use it by hand)
# Uses docker-compose v1 (the Debian package); `docker compose` v2 reads the same files.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
VAR=${ONSITE_VAR_DIR:-$ROOT/var}
PROJECT=${ONSITE_PROD_PROJECT:-onsite-prod}
PY=${PY:-.venv/bin/python}
log() { echo "[prod] $*" >&2; }

files=(-f docker-compose.yml -f platform/prod/compose.single-host.yml)
# GPUs only where the engine has the NVIDIA runtime; the gpu worker runs on the CPU elsewhere.
if docker info --format '{{json .Runtimes}}' 2>/dev/null | grep -q nvidia; then
  files+=(-f platform/prod/compose.gpu.yml)
fi
compose() { docker-compose -p "$PROJECT" "${files[@]}" "$@"; }

secret_key() {
  # Read by the web processes as the image's unprivileged user (uid 10001): compose v1 bind-
  # mounts file secrets as they are, so the file belongs to that uid, readable by it alone.
  local key="$VAR/prod/secret_key"
  mkdir -p "$VAR/prod"
  if [ ! -s "$key" ]; then
    (umask 077 && head -c 48 /dev/urandom | base64 | tr -d '\n' > "$key")
  fi
  chown 10001 "$key" 2>/dev/null || chmod 0644 "$key"
  chmod u+r,go-w "$key"
  export ONSITE_SECRET_KEY_FILE="$key"
}

tls_cert() {
  # nginx's certificate: ONSITE_TLS_CERT_FILE / ONSITE_TLS_KEY_FILE when given, else a
  # self-signed pair for this host (localhost, 127.0.0.1, ::1), made once with openssl.
  if [ -n "${ONSITE_TLS_CERT_FILE:-}" ] || [ -n "${ONSITE_TLS_KEY_FILE:-}" ]; then
    local file
    for file in "${ONSITE_TLS_CERT_FILE:-}" "${ONSITE_TLS_KEY_FILE:-}"; do
      [ -r "$file" ] || { log "set both ONSITE_TLS_CERT_FILE and ONSITE_TLS_KEY_FILE (readable files)"; exit 1; }
    done
    export ONSITE_TLS_CERT_FILE ONSITE_TLS_KEY_FILE
    return
  fi
  local dir="$VAR/prod/tls"
  if [ ! -s "$dir/cert.pem" ] || [ ! -s "$dir/key.pem" ]; then
    log "making a self-signed certificate in $dir"
    mkdir -p "$dir"
    (umask 077 && openssl req -x509 -newkey rsa:2048 -sha256 -nodes -days 825 \
      -subj "/CN=localhost" -addext "subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1" \
      -keyout "$dir/key.pem" -out "$dir/cert.pem" 2>/dev/null)
    chmod 0644 "$dir/cert.pem"
  fi
  export ONSITE_TLS_CERT_FILE="$dir/cert.pem" ONSITE_TLS_KEY_FILE="$dir/key.pem"
}

images() {
  local lines
  lines=$("$PY" platform/prod/images.py "${1:-ensure}")
  # shellcheck disable=SC2046
  export $lines
}

containers() { docker ps -aq --filter "label=com.docker.compose.project=$PROJECT"; }

wait_healthy() {
  local deadline=$((SECONDS + ${ONSITE_PROD_START_SECONDS:-900})) id state bad
  while :; do
    bad=""
    for id in $(compose ps -q); do
      state=$(docker inspect -f '{{.Name}} {{.State.Status}} {{if .State.Health}}{{.State.Health.Status}}{{end}} {{.State.ExitCode}}' "$id")
      case "$state" in
        *migrate*" exited  0") ;;                    # the one-shot finished
        *" running healthy "*) ;;
        *" running  "*) ;;                          # no healthcheck (beat)
        *" exited "*) log "failed: $state"; compose logs --tail 40 >&2; return 1 ;;
        *) bad="$bad ${state%% *}" ;;
      esac
    done
    [ -z "$bad" ] && [ -n "$(compose ps -q)" ] && return 0
    if [ $SECONDS -ge $deadline ]; then
      log "not healthy in time:$bad"; compose ps >&2; return 1
    fi
    sleep 3
  done
}

case "${1:-}" in
  up)
    secret_key
    tls_cert
    images ensure
    log "starting $PROJECT (${files[*]})"
    if ! compose up -d --remove-orphans || ! wait_healthy; then
      log "the stack did not come up; stopping it"
      compose down --remove-orphans --timeout 20 >&2 || true
      exit 1
    fi
    compose ps
    echo "Onsite (production shape) at https://127.0.0.1:${ONSITE_PROD_PORT:-8100}/ (certificate: $ONSITE_TLS_CERT_FILE)"
    ;;
  down)
    secret_key
    tls_cert
    images tags
    compose down --remove-orphans --timeout 20
    left=$(containers)
    if [ -n "$left" ]; then
      log "removing what compose left behind: $left"
      # shellcheck disable=SC2086
      docker rm -f $left >/dev/null
    fi
    ;;
  ps)
    secret_key; tls_cert; images tags; compose ps ;;
  env)
    secret_key; tls_cert; images tags
    echo "export ONSITE_SECRET_KEY_FILE=$ONSITE_SECRET_KEY_FILE"
    echo "export ONSITE_TLS_CERT_FILE=$ONSITE_TLS_CERT_FILE ONSITE_TLS_KEY_FILE=$ONSITE_TLS_KEY_FILE"
    "$PY" platform/prod/images.py tags | sed 's/^/export /'
    echo "alias onsite-compose='docker-compose -p $PROJECT ${files[*]}'"
    ;;
  *)
    echo "usage: $0 up|down|ps|env" >&2; exit 2 ;;
esac

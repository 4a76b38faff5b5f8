#!/usr/bin/env bash
# Make sure a Docker engine answers. On Debian as root: install docker.io if missing and start
# dockerd without container networking (sandboxes need none). Otherwise say what to do.
set -euo pipefail
log() { echo "[docker] $*" >&2; }

if docker info >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  log "no Docker engine answers and this is not root."
  log "Start one (sudo systemctl start docker) or run as root on Debian, then try again."
  exit 1
fi
if ! command -v dockerd >/dev/null 2>&1; then
  if ! command -v apt-get >/dev/null 2>&1; then
    log "dockerd is not installed and this is not Debian: install Docker Engine, then try again."
    exit 1
  fi
  log "installing docker.io (apt-get)…"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q docker.io >/dev/null \
    || { apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q docker.io >/dev/null; }
fi
mkdir -p /var/log/onsite
log "starting dockerd --bridge=none --iptables=false (log: /var/log/onsite/dockerd.log)"
# setsid: the engine outlives this shell and any Ctrl-C sent to the platform's process group.
setsid dockerd --bridge=none --iptables=false >>/var/log/onsite/dockerd.log 2>&1 < /dev/null &
for _ in $(seq 1 60); do
  if docker info >/dev/null 2>&1; then
    log "engine up"
    exit 0
  fi
  sleep 0.5
done
log "dockerd did not come up; see /var/log/onsite/dockerd.log"
exit 1

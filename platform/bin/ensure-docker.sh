#!/usr/bin/env bash
# Make sure a Docker engine answers. On Debian as root: install docker.io if missing and start
# dockerd without container networking (sandboxes need none). Otherwise say what to do.
# As root it also registers crun (the OCI runtime sandboxes prefer: a little cheaper per
# container than runc, see README "Measured here") where this machine's cgroups let crun run.
set -euo pipefail
log() { echo "[docker] $*" >&2; }

# crun refuses a "hybrid" cgroup layout (v1 hierarchies plus a cgroup2 mount) while any
# controller is still bound to the cgroup2 side (Debian 12 kernels leave hugetlb there). A
# controller nobody uses on that side can be mounted as a v1 hierarchy instead; then crun runs.
crun_cgroups_ok() {
  local unified=/sys/fs/cgroup/unified
  [ -f "$unified/cgroup.controllers" ] || return 0  # pure v1 or pure v2: crun supports both
  local name
  for name in $(cat "$unified/cgroup.controllers"); do
    [ -z "$(cat "$unified/cgroup.subtree_control")" ] || return 1
    mkdir -p "/sys/fs/cgroup/$name" 2>/dev/null || return 1
    mount -t cgroup -o "$name" cgroup "/sys/fs/cgroup/$name" 2>/dev/null || return 1
    log "mounted the $name cgroup controller as a v1 hierarchy (for crun)"
  done
  [ -z "$(cat "$unified/cgroup.controllers")" ]
}

# Register crun in /etc/docker/daemon.json (merged with what is there); true if it changed.
crun_register() {
  python3 - <<'PY'
import json, pathlib, sys
path = pathlib.Path("/etc/docker/daemon.json")
config = json.loads(path.read_text() or "{}") if path.exists() else {}
runtimes = config.setdefault("runtimes", {})
if runtimes.get("crun", {}).get("path") == "/usr/bin/crun":
    sys.exit(1)
runtimes["crun"] = {"path": "/usr/bin/crun"}
path.parent.mkdir(parents=True, exist_ok=True)
path.write_text(json.dumps(config, indent=2) + "\n")
PY
}

crun_setup() {
  [ "$(id -u)" = 0 ] && [ -x /usr/bin/crun ] || return 0
  [ ! -e /var/run/onsite-no-crun ] || return 0  # verify-crun found it broken since boot
  if ! crun_cgroups_ok; then
    log "crun cannot run with this machine's cgroups; sandboxes use runc"
    return 0
  fi
  if crun_register && [ -f /var/run/docker.pid ] && kill -0 "$(cat /var/run/docker.pid)" 2>/dev/null; then
    kill -HUP "$(cat /var/run/docker.pid)"  # dockerd reloads its runtimes without a restart
    sleep 1
    log "registered crun with the running engine"
  fi
}

# `ensure-docker.sh verify-crun IMAGE`: run one container of IMAGE on crun; where that fails,
# take crun out of daemon.json again (sandboxes then use runc: ONSITE_SANDBOX_RUNTIME=auto).
if [ "${1:-}" = verify-crun ]; then
  if docker info 2>/dev/null | grep -q "Runtimes:.*crun" \
      && ! docker run --rm --runtime crun --network none "$2" /bin/true >/dev/null 2>&1; then
    log "crun cannot start a sandbox container here; unregistering it (sandboxes use runc)"
    python3 - <<'PY'
import json, pathlib
path = pathlib.Path("/etc/docker/daemon.json")
config = json.loads(path.read_text() or "{}")
config.get("runtimes", {}).pop("crun", None)
path.write_text(json.dumps(config, indent=2) + "\n")
PY
    kill -HUP "$(cat /var/run/docker.pid)" 2>/dev/null || true
    touch /var/run/onsite-no-crun
  fi
  exit 0
fi

if docker info >/dev/null 2>&1; then
  crun_setup
  exit 0
fi
crun_setup
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

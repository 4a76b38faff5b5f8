#!/usr/bin/env bash
# Install the Debian packages the platform and its tests use, when missing (root on Debian).
set -euo pipefail
wanted=(redis-server debootstrap docker.io crun docker-compose chromium python3-venv openssl nginx-light)
command -v node >/dev/null 2>&1 || wanted+=(nodejs npm)
missing=()
for pkg in "${wanted[@]}"; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "[packages] missing: ${missing[*]} — install them with your package manager" >&2
  exit 1
fi
echo "[packages] installing ${missing[*]}…" >&2
apt-get update -q >/dev/null
DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >/dev/null

#!/usr/bin/env bash
# The sandbox base image: a Debian bookworm minbase root filesystem with python3, made with
# debootstrap and imported into Docker (no registry, nothing pulled).
#   build-base.sh <scratch-dir> <tag>
# Called by `python -m sandbox.image ensure`; the base tag is a hash of this file, so editing
# the recipe below is what triggers a rebuild.
set -euo pipefail
scratch=$1
tag=$2
rootfs="$scratch/rootfs"
log() { echo "[sandbox-base] $*" >&2; }

# debootstrap mounts /proc and /sys inside the rootfs; never rm -rf through a live mount.
unmount_all() {
  [ -d "$rootfs" ] || return 0
  local root
  root=$(realpath "$rootfs")
  findmnt -rn -o TARGET | awk -v r="$root" '$0 == r || index($0, r "/") == 1' | sort -r \
    | while read -r m; do umount -l "$m" || true; done || true
}
cleanup() { unmount_all; rm -rf --one-file-system "$rootfs"; }
trap cleanup EXIT

cleanup
mkdir -p "$rootfs"
log "debootstrap bookworm (minbase + python3) into $rootfs …"
debootstrap --variant=minbase --include=python3 bookworm "$rootfs" http://deb.debian.org/debian >&2
unmount_all

# Trim what only the package manager needs.
rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/cache/apt/*.bin \
  "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/log/* "$rootfs"/usr/share/doc/* \
  "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/*
# No setuid/setgid programs (no-new-privileges already neuters them; belt and braces).
find "$rootfs" -xdev -type f -perm /6000 -exec chmod ug-s {} +
# Mount points of the sandbox (tmpfs at run time) and the harness directory.
mkdir -p "$rootfs/work" "$rootfs/opt/onsite"

log "docker import → $tag"
tar --numeric-owner -C "$rootfs" -c . \
  | docker import -c 'ENV PATH=/usr/local/bin:/usr/bin:/bin' -c 'ENV LANG=C.UTF-8' - "$tag" >&2

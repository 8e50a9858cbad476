#!/bin/sh
# A Debian bookworm image with Python 3.11, made from Debian's own packages, for machines that
# cannot pull from Docker Hub (docs/deploying.md, "Container"). The Dockerfile builds on it with
#   docker build --build-arg BASE=pbp-dice-base:bookworm -t pbp-dice .
# It offers what the Dockerfile asks of python:3.11-slim: python3 3.11 with venv, CA
# certificates, useradd. Needs root, debootstrap and a running dockerd.
#
#   sh deploy/container/base-image.sh [TAG] [MIRROR]
set -eu

TAG=${1:-pbp-dice-base:bookworm}
MIRROR=${2:-http://deb.debian.org/debian}

command -v debootstrap >/dev/null || {
    echo "debootstrap is missing: apt-get install debootstrap" >&2
    exit 1
}
root=$(mktemp -d /var/tmp/pbp-dice-base.XXXXXX)
trap 'rm -rf "$root"' EXIT

# minbase: essential and required packages plus apt, then only what the image needs.
debootstrap --variant=minbase --include=python3,python3-venv,ca-certificates \
    bookworm "$root" "$MIRROR"
chroot "$root" apt-get clean
rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/var/log/*.log \
    "$root"/tmp/* "$root"/var/tmp/*
# debootstrap copies the host's resolver settings; the container gets its own at run time.
: >"$root/etc/resolv.conf"

# python:3.11-slim sets LANG too (Python reads and writes UTF-8 either way, PEP 538).
tar --numeric-owner -C "$root" -c . | docker import \
    --change 'ENV LANG=C.UTF-8' \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'CMD ["python3"]' \
    --message "debootstrap --variant=minbase bookworm from $MIRROR" \
    - "$TAG"
docker run --rm "$TAG" python3 --version

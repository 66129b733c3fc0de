#!/usr/bin/env sh
# The multi-instance tests of @armature/redis (packages/redis/test) start Debian's redis-server on a
# free 127.0.0.1 port, never a mock. Installs it when missing (apt, as root or with sudo), so
# `pnpm test` stays one command on a fresh machine.
set -eu
command -v redis-server >/dev/null 2>&1 && exit 0
if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-redis: redis-server is missing and apt-get is not available; the @armature/redis tests will fail. Fix: install redis-server (Redis 7.0 or later: the task store uses PEXPIRETIME) on the PATH." >&2
  exit 0
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo
echo "install-redis: installing Debian's redis-server for the @armature/redis tests" >&2
$sudo apt-get update -q
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q redis-server

#!/usr/bin/env sh
# The docs site's browser check (docs/test/site-browser.test.ts) drives Debian's Chromium at
# /usr/bin/chromium, never a downloaded browser. Installs it when missing (apt, as root or with sudo),
# so `pnpm test` stays one command on a fresh machine.
set -eu
[ -x /usr/bin/chromium ] && exit 0
if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-chromium: /usr/bin/chromium is missing and apt-get is not available; the docs site check will fail. Fix: install Chromium at /usr/bin/chromium." >&2
  exit 0
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo
echo "install-chromium: installing Debian's chromium for the docs site check" >&2
$sudo apt-get update -q
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium

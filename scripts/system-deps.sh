#!/usr/bin/env bash
# Installs the Debian packages the tests need, but only those that are missing,
# so that `make test` stays a no-op here on a machine that already has them.
# The pictures need no font package (render/fonts/ ships the subset of Noto Sans SC they use);
# the Mini App's browser tests need a CJK font, as phones have one, for their screenshots.
set -euo pipefail

missing=()
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)
python3 -c 'import ensurepip, venv' >/dev/null 2>&1 || missing+=(python3-venv)
command -v faketime >/dev/null 2>&1 || missing+=(faketime)  # make calendar-check
command -v chromium >/dev/null 2>&1 || missing+=(chromium)  # the Mini App's browser tests (Playwright drives it)
[ -e /usr/share/fonts/truetype/wqy/wqy-microhei.ttc ] || missing+=(fonts-wqy-microhei)  # Chinese in their screenshots
# The Mini App's failover test runs its own caddy in front of two bot processes (the repository's
# Caddyfile, on loopback ports); the package's systemd service is not used.
command -v caddy >/dev/null 2>&1 || missing+=(caddy)
# The PostgreSQL store's tests start a throw-away cluster of their own with these binaries
# (emulator/postgresql.py); no server is configured or used. `make run` does not need them.
compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || missing+=(postgresql)

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "Missing Debian packages: ${missing[*]}" >&2
  echo "Install them with: sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
echo "Installing Debian packages: ${missing[*]}"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"

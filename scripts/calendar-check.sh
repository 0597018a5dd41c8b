#!/usr/bin/env bash
# Runs the tests that read dates and clocks (the `calendar` marker, tests/conftest.py) again
# with the whole process tree, emulator included, 400 days ahead of the real calendar
# (libfaketime). A test that fixed a date the calendar will overtake fails here today instead
# of failing CI for everyone on the day the real calendar passes it (issue 16).
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v faketime >/dev/null 2>&1; then
  echo "faketime is missing: apt-get install -y faketime" >&2
  exit 1
fi
exec faketime -f +400d .venv/bin/pytest -n "${TEST_WORKERS:-0}" --dist worksteal -m calendar -p no:cacheprovider -q "$@"

#!/usr/bin/env bash
# Compiles every gettext catalog (.po) in the project to the .mo file beside it,
# because only compiled catalogs are loaded at run time and they are not committed.
set -euo pipefail

pybabel=${1:-pybabel}
find . -path ./.venv -prune -o -path ./emulator/node_modules -prune -o -name '*.po' -print |
  while read -r po; do
    "$pybabel" compile --statistics -i "$po" -o "${po%.po}.mo"
  done

#!/bin/sh
# Makes ./.venv (Python >= 3.12, which postgres-mcp requires) and installs
# requirements.lock into it with pip. Exits non-zero with the reason on
# stderr when no Python >= 3.12 can be found or the index lacks a package.
set -eu
here="$(cd "$(dirname "$0")" && pwd)"

# A Python >= 3.12: $RBV_PYTHON312, else python3.13/python3.12/python3 on
# PATH, else an installed pyenv version (pyenv shims fail for versions that
# are not active, so each candidate is tried, not just found).
is_312() { "$1" -c 'import sys, venv; sys.exit(0 if sys.version_info >= (3, 12) else 1)' >/dev/null 2>&1; }
py=""
for c in "${RBV_PYTHON312:-}" python3.13 python3.12 python3; do
  [ -n "$c" ] || continue
  if command -v "$c" >/dev/null 2>&1 && is_312 "$c"; then py="$(command -v "$c")"; break; fi
done
if [ -z "$py" ]; then
  for c in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.1[2-9]*/bin/python3; do
    if [ -x "$c" ] && is_312 "$c"; then py="$c"; break; fi
  done
fi
if [ -z "$py" ]; then
  echo "setup: postgres-mcp needs Python >= 3.12 and none was found (tried \$RBV_PYTHON312, python3.13, python3.12, python3, pyenv versions); set RBV_PYTHON312 to one" >&2
  exit 1
fi
echo "setup: using $py ($("$py" --version 2>&1))" >&2

if [ ! -x "$here/.venv/bin/python" ] || ! is_312 "$here/.venv/bin/python"; then
  rm -rf "$here/.venv"
  "$py" -m venv "$here/.venv"
fi
# --no-deps: exactly the lock, no resolution (postgres-mcp's own pin of
# pglast cannot be met here; see README.md).
"$here/.venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps -r "$here/requirements.lock" >&2 \
  || { echo "setup: pip could not install requirements.lock (is the package index reachable?)" >&2; exit 1; }
"$here/.venv/bin/python" -c 'import pglast, psycopg, psycopg_pool' \
  || { echo "setup: the venv cannot import the validator's libraries" >&2; exit 1; }

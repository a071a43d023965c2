#!/bin/sh
# Installs this peer's pinned npm packages (package-lock.json) into ./node_modules.
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/../lib/npm-setup.sh"
npm_setup "$here"

# Shared by the Node.js peers' setup.sh: installs the pinned packages of one
# peer folder from its package-lock.json with the ordinary npm client.
# Usage (sourced): npm_setup <peer folder>
npm_setup() {
  local dir="$1"
  command -v node >/dev/null 2>&1 || { echo "setup: node is not installed (need Node.js >= 20)" >&2; return 1; }
  command -v npm >/dev/null 2>&1 || { echo "setup: npm is not installed" >&2; return 1; }
  local major
  major="$(node -p 'process.versions.node.split(".")[0]')"
  [ "$major" -ge 20 ] || { echo "setup: Node.js >= 20 needed, found $(node --version)" >&2; return 1; }
  # npm ci installs exactly the lock file; --ignore-scripts: the peers need
  # none of the packages' install scripts (native helpers are optional).
  (cd "$dir" && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error) >&2 \
    || { echo "setup: npm ci failed in $dir (is the registry reachable?)" >&2; return 1; }
}

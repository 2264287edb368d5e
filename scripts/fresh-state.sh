#!/usr/bin/env bash
# Puts this machine back into the brand-new state as far as ferry is concerned, then runs the README's
# first command in a fresh clone, timed: what a newcomer meets, which CI (with its warm cache) never sees.
#
#   bash scripts/fresh-state.sh --yes [--runs N] [--command "npm run lab -- --once"] [--ref BRANCH]
#
# Each run:
#   1. purges every Debian package that ferry's setup installed (the transactions apt's history marks
#      `ferry::setup=true`, and those of older setups, `-o DPkg::Lock::Timeout=600 install`), with the
#      dependencies apt pulled in with them; packages setup only upgraded stay upgraded;
#   2. empties $FERRY_CACHE (default ~/.cache/ferry), libguestfs's appliance cache, and the Go and pip
#      caches setup filled (npm's cache is left alone, as on a machine that has used npm before);
#   3. clones this repository's BRANCH (default: the one checked out) into a new folder and runs the
#      command there with CI=true and no standard input, timing it; its output goes to the terminal and
#      to fresh-state-<n>.log in that folder's parent.
# It is destructive (it removes packages and caches other clones use), so it asks for --yes.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
FERRY_CACHE="${FERRY_CACHE:-$HOME/.cache/ferry}"
RUNS=1
COMMAND="npm run lab -- --once"
REF="$(git -C "$ROOT" rev-parse --abbrev-ref HEAD)"
YES=0

usage() { sed -n '2,17p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
  case "$1" in
    --yes) YES=1 ;;
    --runs) RUNS="${2:?--runs needs a number}"; shift ;;
    --command) COMMAND="${2:?--command needs a command}"; shift ;;
    --ref) REF="${2:?--ref needs a branch}"; shift ;;
    -h | --help) usage; exit 0 ;;
    *) printf 'fresh-state: unknown argument %s\n\n' "$1" >&2; usage >&2; exit 2 ;;
  esac
  shift
done
[[ "$RUNS" =~ ^[1-9][0-9]*$ ]] || { echo "fresh-state: --runs must be a positive number, not '$RUNS'" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "fresh-state: purging Debian packages needs root" >&2; exit 2; }

say() { printf '[fresh-state] %s\n' "$*" >&2; }

# ferry_packages: the packages ferry's setup transactions installed that are still installed.
ferry_packages() {
  { cat /var/log/apt/history.log 2>/dev/null; zcat -f /var/log/apt/history.log.*.gz 2>/dev/null || true; } |
    awk '/^Start-Date:/ { ours = 0 }
         /^Commandline:/ { ours = ($0 ~ /ferry::setup=true/ || $0 ~ /DPkg::Lock::Timeout=600 install/) }
         ours && /^Install:/ { sub(/^Install: /, ""); print }' |
    sed 's/), /)\n/g' | sed -E 's/^([^: ]+)(:[a-z0-9]+)? .*/\1/' | sort -u |
    while read -r pkg; do
      dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' && echo "$pkg"
    done
}

reset_machine() {
  local packages
  mapfile -t packages < <(ferry_packages)
  if [ ${#packages[@]} -gt 0 ]; then
    say "purging ${#packages[@]} Debian packages ferry's setup installed: ${packages[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get purge -y -q "${packages[@]}" >/dev/null
  else
    say "no Debian package of ferry's setup is installed"
  fi
  say "emptying $FERRY_CACHE, /var/tmp/.guestfs-$(id -u) and the Go and pip caches"
  rm -rf "$FERRY_CACHE" "/var/tmp/.guestfs-$(id -u)" "${XDG_CACHE_HOME:-$HOME/.cache}/pip"
  if command -v go >/dev/null; then go clean -cache -modcache >/dev/null 2>&1 || true; fi
}

if [ "$YES" -ne 1 ]; then
  say "this purges these Debian packages (what ferry's setup installed):"
  ferry_packages | tr '\n' ' ' | fold -s -w 100 | sed 's/^/    /' >&2
  echo >&2
  say "and empties $FERRY_CACHE, /var/tmp/.guestfs-$(id -u) and the Go and pip caches; run again with --yes"
  exit 2
fi

BASE="$(mktemp -d /tmp/ferry-fresh.XXXXXX)"
say "runs: $RUNS of '$COMMAND' on branch $REF of $ROOT (clones under $BASE)"
results=()
failed=0
for run in $(seq 1 "$RUNS"); do
  reset_machine
  clone="$BASE/clone-$run"
  git clone --quiet --branch "$REF" "$ROOT" "$clone"
  say "run $run: $(git -C "$clone" log -1 --format='%h %s' | cut -c1-100)"
  began=$SECONDS
  status=0
  # pipefail: the command's exit status, not tee's.
  (cd "$clone" && CI=true bash -c "$COMMAND" </dev/null 2>&1 | tee "$BASE/fresh-state-$run.log") || status=$?
  seconds=$((SECONDS - began))
  results+=("run $run: exit $status after ${seconds} s ($((seconds / 60)) min $((seconds % 60)) s); log $BASE/fresh-state-$run.log")
  say "${results[-1]}"
  [ "$status" -eq 0 ] || failed=$((failed + 1))
  # A clone with its tools and node_modules is ~4 GiB: keep only a failed one, to read.
  [ "$status" -ne 0 ] || rm -rf "$clone"
done
say "summary ($REF, '$COMMAND'):"
printf '    %s\n' "${results[@]}" >&2
[ "$failed" -eq 0 ]

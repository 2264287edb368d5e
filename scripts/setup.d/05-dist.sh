# The compiled CLI and worker (dist/), which bin/ferry.js runs while it is current: see scripts/build-dist.sh.
build_dist() {
  local began=$SECONDS
  bash "$ROOT/scripts/build-dist.sh" || die "the TypeScript build (npm run build) failed"
  [ $((SECONDS - began)) -lt 10 ] || log "built dist/ in $((SECONDS - began)) s"
}
build_dist

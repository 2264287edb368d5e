# debian: postgresql-15
# only-for: tests
# The production Temporal server (not the dev server) and its SQL schema tool, built from the Go module
# proxy, with the module's PostgreSQL v12 schema and config templates copied next to them. Only the
# production-topology test (test/e2e/production-topology.test.ts) uses it. The build takes ~6 min on
# 2 cores the first time; it is cached by version. v1.29.2 is the newest tag this machine's Go builds
# without GOTOOLCHAIN (v1.31+ declare go 1.26.10).
TEMPORAL_SERVER_VERSION=v1.29.2
TEMPORAL_SERVER_PG_MAJOR=15

install_temporal_server() {
  local dir="$FERRY_CACHE/temporal-server-$TEMPORAL_SERVER_VERSION"
  if [ ! -f "$dir/.complete" ]; then
    command -v go >/dev/null || die "Go is needed to build the Temporal server $TEMPORAL_SERVER_VERSION"
    log "building the Temporal server $TEMPORAL_SERVER_VERSION and its SQL tool with go install into $dir (about 6 minutes)"
    local began=$SECONDS tmp="$dir.partial"
    rm -rf "$tmp" && mkdir -p "$tmp"
    GOBIN="$tmp" go install "go.temporal.io/server/cmd/server@$TEMPORAL_SERVER_VERSION" \
      "go.temporal.io/server/cmd/tools/sql@$TEMPORAL_SERVER_VERSION"
    local src
    src="$(go env GOMODCACHE)/go.temporal.io/server@$TEMPORAL_SERVER_VERSION"
    mkdir -p "$tmp/schema"
    cp -r "$src/schema/postgresql" "$tmp/schema/" && cp -r "$src/config" "$tmp/config"
    chmod -R u+w "$tmp"
    mv "$tmp/server" "$tmp/temporal-server" && mv "$tmp/sql" "$tmp/temporal-sql-tool"
    touch "$tmp/.complete"
    rm -rf "$dir" && mv "$tmp" "$dir"
    log "Temporal server $TEMPORAL_SERVER_VERSION built in $((SECONDS - began)) s"
  fi
  link_tool temporal-server "$dir/temporal-server"
  link_tool temporal-sql-tool "$dir/temporal-sql-tool"
}

with_lock temporal-server install_temporal_server

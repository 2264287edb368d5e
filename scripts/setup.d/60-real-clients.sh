# debian: python3-venv
# Proxmox VE clients ferry does not use itself, for the real-client suite (test/integration/real-clients):
# they drive the Proxmox simulator through a VM's lifecycle as a user's own tooling would.
#
#   proxmoxer 2.2.0 (PyPI) and its pinned dependencies, in a venv of the machine's python3:
#     $FERRY_CACHE/proxmoxer-2.2.0/, `.tools/bin/proxmoxer-python` runs its interpreter
#   github.com/luthermonson/go-proxmox v0.10.0 (Go module proxy), in ferry's own small program
#     test/real-clients/go (go.mod/go.sum pin it), built into
#     $FERRY_CACHE/go-proxmox-lifecycle-<hash of the program>/, `.tools/bin/go-proxmox-lifecycle`
PROXMOXER_VERSION=2.2.0
PROXMOXER_DEPS=(requests==2.32.3 urllib3==2.2.3 idna==3.10 certifi==2024.8.30 charset-normalizer==3.4.0)
GO_CLIENT_SRC="$ROOT/test/real-clients/go"
GO_CLIENT_KEY="$(cat "$GO_CLIENT_SRC/go.mod" "$GO_CLIENT_SRC/go.sum" "$GO_CLIENT_SRC"/*.go | sha256sum | cut -c1-12)"
GO_CLIENT_DIR="$FERRY_CACHE/go-proxmox-lifecycle-$GO_CLIENT_KEY"

install_proxmoxer() {
  local dir="$FERRY_CACHE/proxmoxer-$PROXMOXER_VERSION"
  if [ ! -f "$dir/.complete" ]; then
    log "installing proxmoxer==$PROXMOXER_VERSION from PyPI into $dir"
    rm -rf "$dir"
    python3 -m venv "$dir"
    "$dir/bin/pip" install --quiet --disable-pip-version-check --no-deps "proxmoxer==$PROXMOXER_VERSION" "${PROXMOXER_DEPS[@]}" ||
      die "pip could not install proxmoxer==$PROXMOXER_VERSION and ${PROXMOXER_DEPS[*]}"
    "$dir/bin/python3" -c 'import proxmoxer, requests' || die "proxmoxer does not import in $dir"
    # A venv's interpreter finds its packages only when run from its own folder: a wrapper, not a link.
    printf '#!/bin/sh\nexec "%s/bin/python3" "$@"\n' "$dir" >"$dir/bin/proxmoxer-python"
    chmod +x "$dir/bin/proxmoxer-python"
    touch "$dir/.complete"
  fi
  link_tool proxmoxer-python "$dir/bin/proxmoxer-python"
}

install_go_client() {
  if [ ! -f "$GO_CLIENT_DIR/.complete" ]; then
    command -v go >/dev/null || die "Go is needed to build the go-proxmox real-client program ($GO_CLIENT_SRC)"
    log "building the go-proxmox lifecycle program into $GO_CLIENT_DIR (module from the Go proxy)"
    rm -rf "$GO_CLIENT_DIR" && mkdir -p "$GO_CLIENT_DIR"
    (cd "$GO_CLIENT_SRC" && GOFLAGS=-mod=readonly go build -trimpath -o "$GO_CLIENT_DIR/go-proxmox-lifecycle" .) ||
      die "go build of $GO_CLIENT_SRC failed"
    touch "$GO_CLIENT_DIR/.complete"
  fi
  link_tool go-proxmox-lifecycle "$GO_CLIENT_DIR/go-proxmox-lifecycle"
}

with_lock "proxmoxer-$PROXMOXER_VERSION" install_proxmoxer
with_lock go-proxmox-lifecycle install_go_client

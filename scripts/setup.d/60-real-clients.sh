# debian: python3-venv
# only-for: tests
# Proxmox VE clients ferry does not use itself, for the real-client suite (test/integration/real-clients):
# they drive the Proxmox simulator through a VM's lifecycle as a user's own tooling would. Tests only:
# `scripts/setup.sh --lab` (npm run lab, chaos, the benchmarks) leaves this part out.
#
#   proxmoxer 2.2.0 (PyPI) and its pinned dependencies, in a venv of the machine's python3:
#     $FERRY_CACHE/proxmoxer-2.2.0/, `.tools/bin/proxmoxer-python` runs its interpreter
#   github.com/luthermonson/go-proxmox v0.10.0 (Go module proxy), in ferry's own small program
#     test/real-clients/go (go.mod/go.sum pin it), built into
#     $FERRY_CACHE/go-proxmox-lifecycle-<hash of the program>/, `.tools/bin/go-proxmox-lifecycle`
#   OpenTofu v1.10.6 and the bpg/proxmox provider v0.80.0 (both from the Go module proxy, built from their
#     module sources: OpenTofu's go.mod has a replace directive, and the proxy answers the provider's
#     version list with 403, so neither builds with `go install module@version`):
#     $FERRY_CACHE/opentofu-v1.10.6/tofu and $FERRY_CACHE/terraform-provider-proxmox-bpg-v0.80.0/
#     terraform-provider-proxmox, `.tools/bin/tofu` and `.tools/bin/terraform-provider-proxmox` (tofu takes
#     the provider through a CLI config's dev_overrides: no registry). Cold builds on 2 busy cores: the
#     provider about 5 minutes, OpenTofu about 20.
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

OPENTOFU_VERSION=v1.10.6
BPG_PROVIDER_VERSION=v0.80.0

# go_module_build MODULE VERSION PACKAGE OUT: builds PACKAGE of MODULE@VERSION as the main module (its
# own go.mod and go.sum, replace directives included) from the module proxy's copy, into OUT.
go_module_build() {
  local module=$1 version=$2 package=$3 out=$4 dir src rc
  command -v go >/dev/null || die "Go is needed to build $module $version"
  dir="$(go mod download -json "$module@$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
  [ -d "$dir" ] || die "go mod download $module@$version gave no source folder"
  src="$(mktemp -d)"
  cp -r "$dir/." "$src" && chmod -R u+w "$src"
  (cd "$src" && GOFLAGS=-mod=readonly go build -trimpath -o "$out" "$package")
  rc=$?
  rm -rf "$src"
  return $rc
}

install_opentofu() {
  local dir="$FERRY_CACHE/opentofu-$OPENTOFU_VERSION"
  if [ ! -x "$dir/tofu" ]; then
    log "building OpenTofu $OPENTOFU_VERSION from the Go module proxy into $dir (about 20 minutes cold)"
    local began=$SECONDS
    mkdir -p "$dir"
    go_module_build github.com/opentofu/opentofu "$OPENTOFU_VERSION" ./cmd/tofu "$dir/tofu" ||
      die "building OpenTofu $OPENTOFU_VERSION failed"
    log "OpenTofu built in $((SECONDS - began)) s"
  fi
  link_tool tofu "$dir/tofu"
}

install_bpg_provider() {
  local dir="$FERRY_CACHE/terraform-provider-proxmox-bpg-$BPG_PROVIDER_VERSION"
  if [ ! -x "$dir/terraform-provider-proxmox" ]; then
    log "building the bpg/proxmox provider $BPG_PROVIDER_VERSION from the Go module proxy into $dir (about 5 minutes cold)"
    local began=$SECONDS
    mkdir -p "$dir"
    go_module_build github.com/bpg/terraform-provider-proxmox "$BPG_PROVIDER_VERSION" . "$dir/terraform-provider-proxmox" ||
      die "building the bpg/proxmox provider $BPG_PROVIDER_VERSION failed"
    log "bpg/proxmox provider built in $((SECONDS - began)) s"
  fi
  link_tool terraform-provider-proxmox "$dir/terraform-provider-proxmox"
}

with_lock "proxmoxer-$PROXMOXER_VERSION" install_proxmoxer
with_lock go-proxmox-lifecycle install_go_client
with_lock "opentofu-$OPENTOFU_VERSION" install_opentofu
with_lock "bpg-provider-$BPG_PROVIDER_VERSION" install_bpg_provider

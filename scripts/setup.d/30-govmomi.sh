# govmomi's vCenter simulator (vcsim) and CLI (govc), pinned: v0.46.3 is the last tag that
# `go install` can build (later tags moved both into nested modules with replace directives).
GOVMOMI_VERSION=v0.46.3
# The `go` line of govmomi v0.46.3's go.mod: an older Go fails with a cryptic build error.
GOVMOMI_GO_MIN=1.22

# go_at_least MAJOR.MINOR: whether the Go on PATH is that version or newer.
go_at_least() {
  local have
  have="$(go env GOVERSION 2>/dev/null | sed -n 's/^go\([0-9]*\.[0-9]*\).*/\1/p')"
  [ -n "$have" ] && [ "$(printf '%s\n%s\n' "$1" "$have" | sort -V | head -n1)" = "$1" ]
}

install_govmomi() {
  local dir="$FERRY_CACHE/govmomi-$GOVMOMI_VERSION"
  if [ ! -x "$dir/vcsim" ] || [ ! -x "$dir/govc" ]; then
    command -v go >/dev/null || die "Go $GOVMOMI_GO_MIN or newer is needed to build vcsim and govc ($GOVMOMI_VERSION)"
    go_at_least "$GOVMOMI_GO_MIN" ||
      die "vcsim and govc $GOVMOMI_VERSION need Go $GOVMOMI_GO_MIN or newer; this is $(go version) (install a newer Go from https://go.dev/dl/)"
    log "building vcsim and govc $GOVMOMI_VERSION with go install into $dir (about a minute)"
    local began=$SECONDS
    GOBIN="$dir" go install "github.com/vmware/govmomi/vcsim@$GOVMOMI_VERSION" "github.com/vmware/govmomi/govc@$GOVMOMI_VERSION"
    log "vcsim and govc built in $((SECONDS - began)) s"
  fi
  link_tool vcsim "$dir/vcsim"
  link_tool govc "$dir/govc"
}

with_lock govmomi install_govmomi

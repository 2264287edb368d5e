# govmomi's vCenter simulator (vcsim) and CLI (govc), pinned: v0.46.3 is the last tag that
# `go install` can build (later tags moved both into nested modules with replace directives).
# qemu-img makes the lab estate's real VMDK files.
GOVMOMI_VERSION=v0.46.3

install_govmomi() {
  local dir="$FERRY_CACHE/govmomi-$GOVMOMI_VERSION"
  if [ ! -x "$dir/vcsim" ] || [ ! -x "$dir/govc" ]; then
    command -v go >/dev/null || die "Go is needed to build vcsim and govc ($GOVMOMI_VERSION)"
    log "building vcsim and govc $GOVMOMI_VERSION with go install into $dir"
    GOBIN="$dir" go install "github.com/vmware/govmomi/vcsim@$GOVMOMI_VERSION" "github.com/vmware/govmomi/govc@$GOVMOMI_VERSION"
  fi
  link_tool vcsim "$dir/vcsim"
  link_tool govc "$dir/govc"
}

apt_install_qemu_utils_for_vmdk() { apt_install qemu-utils; }

with_lock govmomi install_govmomi
with_lock apt apt_install_qemu_utils_for_vmdk
command -v qemu-img >/dev/null || die "qemu-img is still missing after installing qemu-utils"

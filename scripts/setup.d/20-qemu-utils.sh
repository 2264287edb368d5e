# debian: qemu-utils
# qemu-img, used by the Proxmox simulator to import (convert), resize and move disk images on its
# storage folders, by the lab to make its vcsim estate's real VMDK files, and by the tests to compare an
# imported disk with its source (qemu-img compare).
command -v qemu-img >/dev/null || die "qemu-img is missing though qemu-utils is installed"

# qemu-img, used by the Proxmox simulator to import (convert), resize and move disk images on its
# storage folders, by the lab to make its vcsim estate's real VMDK files, and by the tests to compare an
# imported disk with its source (qemu-img compare).
apt_install_qemu_utils() { apt_install qemu-utils; }
with_lock apt apt_install_qemu_utils
command -v qemu-img >/dev/null || die "qemu-img is still missing after installing qemu-utils"

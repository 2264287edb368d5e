# debian: qemu-system-x86 ovmf seabios qemu-utils mtools genisoimage
# debian: debootstrap dosfstools syslinux syslinux-common systemd-boot-efi gdisk e2fsprogs
# A real guest for the lab: Debian 12 (minbase) with the cloud kernel, systemd (systemd-networkd) and the
# real qemu-guest-agent, built offline from Debian packages (debootstrap through the Debian mirror) and
# cached by version. One raw disk boots on SeaBIOS and on OVMF:
#
#   GPT, 384 MiB (sparse)
#   p1  1 MiB + 64 MiB  ESP, FAT, "legacy BIOS bootable"   kernel + initramfs, systemd-boot as
#                       EFI/BOOT/BOOTX64.EFI (OVMF), syslinux (SeaBIOS through gptmbr.bin in the MBR),
#                       and ferry/vm.conf: the per-VM settings (see lab/guest-image/per-vm-config.ts)
#   p2  65 MiB + 318 MiB  ext4 root (made with mke2fs -d: no loop device, no mount)
#
# Variants (only /etc/ferry/nic-match differs):
#   mac     the address goes on the NIC matched by MAC (survives vmxnet3 -> virtio)
# Settings come from ferry/vm.conf on the ESP or, without one, from a NoCloud cloud-init drive (label
# cidata, as PVE builds for a `cloudinit` drive; network-config version 1).
#   ens192  matched by interface name ens192 (as many VMware guests are): lost after migration
# Each variant is kept raw (for QEMU) and as vSphere keeps a disk on a datastore: a monolithicFlat VMDK
# (descriptor + -flat.vmdk extent, the layout lab/vcsim/vmdk.ts makes for the estate's disks).
#
# Cache layout ($FERRY_CACHE/guest-image-$GUEST_IMAGE_KEY, linked as .tools/guest-image):
#   ferry-guest-<variant>.raw   ferry-guest-<variant>.vmdk + ferry-guest-<variant>-flat.vmdk
#   vmlinuz   manifest.json (versions, partition offsets)   build.log   .complete
GUEST_IMAGE_VERSION=5
GUEST_IMAGE_SUITE=bookworm
GUEST_IMAGE_MIRROR="${FERRY_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
GUEST_IMAGE_OVERLAY="$ROOT/lab/guest-image/overlay"
GUEST_IMAGE_INITRAMFS="$ROOT/lab/guest-image/initramfs"
# The cache key is the version and a hash of the recipe (this file and the guest's own files), so an
# edited recipe never reuses a stale image.
GUEST_IMAGE_KEY="$GUEST_IMAGE_VERSION-$(cat "${BASH_SOURCE[0]}" $(find "$GUEST_IMAGE_OVERLAY" "$GUEST_IMAGE_INITRAMFS" -type f | LC_ALL=C sort) |
  sha256sum | cut -c1-12)"
GUEST_IMAGE_DIR="$FERRY_CACHE/guest-image-$GUEST_IMAGE_KEY"

GI_DISK_MIB=384
GI_ESP_START_MIB=1
GI_ESP_MIB=64
GI_ROOT_START_MIB=65
GI_ROOT_MIB=318
# Kernel modules the initramfs loads to find the root disk: PVE's usual controllers first, VMware's and
# the PIIX IDE only when the root is not there (lab/guest-image/initramfs/init; the cloud kernel has no
# AHCI driver). virtio_console: the
# guest agent's port exists when systemd starts. virtio_net (version 5): the NIC exists when systemd
# starts, so ferry-guest-config sets its address at once instead of after udev's coldplug (5-16 s of a
# TCG boot). (nvme is built into the cloud kernel.)
GI_INITRAMFS_FIRST="virtio_pci virtio_scsi virtio_blk sd_mod virtio_console virtio_net"
GI_INITRAMFS_MORE="ata_piix vmw_pvscsi"
# mitigations=off: a lab guest; KPTI's page-table switches are costly under TCG.
# no_timer_check (as cloud images boot VMs): under TCG on a loaded host the kernel's check of the IO-APIC
# timer sees too few ticks and panics ("IO-APIC + timer doesn't work!"), seen with three guests booting at once.
# rw: the initramfs mounts the root read-write (no systemd-remount-fs). loglevel=6: the console (the
# lab's serial log) keeps notices, warnings and errors but not the hundreds of info lines a TCG guest
# spends time printing. memhp_default_state=online: memory Proxmox VE hot-adds (a DIMM, with the
# `memory` hotplug feature) is onlined by the kernel at once (Debian's kernel, without
# CONFIG_MEMORY_HOTPLUG_DEFAULT_ONLINE, leaves it offline); hot-added vCPUs by a udev rule (overlay).
GI_CMDLINE_EXTRA="rw console=ttyS0,115200n8 loglevel=6 panic=-1 mitigations=off no_timer_check memhp_default_state=online"

gi_step() { log "guest image: $*"; }

gi_chroot() { chroot "$GI_ROOTFS" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }

gi_debootstrap() {
  gi_step "debootstrap Debian 12 ($GUEST_IMAGE_SUITE) minbase + linux-image-cloud-amd64 + systemd + qemu-guest-agent + acpid from $GUEST_IMAGE_MIRROR (about a minute)"
  # INITRD=No: the kernel's postinst skips the default (MODULES=most) initramfs; a small one is made below.
  INITRD=No debootstrap --variant=minbase \
    --include=systemd-sysv,udev,dbus,qemu-guest-agent,acpid,initramfs-tools,zstd,linux-image-cloud-amd64,busybox-static \
    "$GUEST_IMAGE_SUITE" "$GI_ROOTFS" "$GUEST_IMAGE_MIRROR" >>"$GI_LOG" 2>&1 ||
    die_with_log "$GI_LOG" "debootstrap of the guest image failed"
}

gi_configure() {
  gi_step "configuring the guest: fstab, ferry's units (per-VM settings, probe on TCP 8080), networkd, boot speed"
  tar -C "$GUEST_IMAGE_OVERLAY" --owner=0 --group=0 -cf - . | tar -C "$GI_ROOTFS" --no-overwrite-dir -xf -
  # The ESP holds ferry/vm.conf: the initramfs mounts it at /boot/efi (read-only) with the root, so
  # ferry-guest-config does not wait for udev to announce it (seconds under TCG); not in fstab.
  cat >"$GI_ROOTFS/etc/fstab" <<EOF
UUID=$GI_ROOT_UUID / ext4 rw,errors=remount-ro 0 0
EOF
  mkdir -p "$GI_ROOTFS/boot/efi" "$GI_ROOTFS/etc/ferry"
  echo ferry-guest >"$GI_ROOTFS/etc/hostname"
  printf '127.0.0.1\tlocalhost\n127.0.1.1\tferry-guest\n::1\tlocalhost ip6-localhost ip6-loopback\n' >"$GI_ROOTFS/etc/hosts"
  # Empty: every copy of the image makes its own machine-id at first boot.
  : >"$GI_ROOTFS/etc/machine-id"
  # Without logind, `shutdown +0` (the agent's guest-shutdown) needs ferry's /sbin/shutdown.
  [ "$(readlink "$GI_ROOTFS/usr/sbin/shutdown")" = /bin/systemctl ] || die "the guest's /usr/sbin/shutdown is not systemctl's"
  ln -sfn /usr/local/sbin/ferry-shutdown "$GI_ROOTFS/usr/sbin/shutdown"
  rm -f "$GI_ROOTFS/var/lib/dbus/machine-id"
  rm -rf "$GI_ROOTFS/var/log/journal"
  gi_chroot systemctl enable --quiet systemd-networkd.service ferry-guest-config.service ferry-probe.service qemu-guest-agent.service
  # Nothing in the lab waits for these; masking them keeps a TCG boot short. systemd-firstboot would
  # prompt on the console at the first boot of each copy.
  # (fstab's pass 0 likewise skips a boot-time fsck of the root: 3 s under TCG.)
  gi_chroot systemctl mask --quiet systemd-firstboot.service systemd-networkd-wait-online.service \
    apt-daily.timer apt-daily-upgrade.timer dpkg-db-backup.timer e2scrub_all.timer fstrim.timer e2scrub_reap.service \
    dev-hugepages.mount dev-mqueue.mount sys-kernel-debug.mount sys-kernel-tracing.mount sys-kernel-config.mount \
    sys-fs-fuse-connections.mount modprobe@fuse.service modprobe@configfs.service modprobe@dm_mod.service \
    modprobe@loop.service modprobe@efi_pstore.service systemd-pstore.service systemd-journal-flush.service
  # The same for the lab's boot-to-agent figure (measured: lab/guest-image/measure-boot.ts --analyze):
  # under TCG every unit costs CPU the agent waits for. No logins (logind, D-Bus, gettys, utmp); the
  # root is mounted rw by the initramfs (no remount); the users exist (no sysusers); the machine-id
  # stays the transient one each copy makes; no sysctl, modules-load or random-seed work to do.
  gi_chroot systemctl mask --quiet systemd-logind.service dbus.service dbus.socket getty@.service \
    serial-getty@.service console-getty.service getty.target systemd-update-utmp.service systemd-update-utmp-runlevel.service \
    systemd-user-sessions.service systemd-remount-fs.service systemd-sysusers.service systemd-machine-id-commit.service \
    systemd-sysctl.service systemd-modules-load.service systemd-random-seed.service modprobe@drm.service \
    kmod-static-nodes.service systemd-network-generator.service systemd-tmpfiles-clean.timer \
    proc-sys-fs-binfmt_misc.automount systemd-binfmt.service systemd-tmpfiles-setup-dev.service \
    systemd-tmpfiles-setup.service
  # No journal either (seconds of a TCG boot to start): the serial console is the lab's log. With its
  # sockets masked, services' output goes nowhere unless they send it to the console (ferry's do).
  gi_chroot systemctl mask --quiet systemd-journald.service systemd-journald.socket systemd-journald-dev-log.socket \
    systemd-journald-audit.socket systemd-journald@.service systemd-journald@.socket systemd-journald-varlink@.socket
}

# gi_module_list LIST MODULE...: the modules' .ko files with their dependencies, in load order, once each
# (modprobe --show-depends prints "insmod PATH" lines, dependencies first).
gi_module_list() {
  local list="$1" ko
  shift
  for module in "$@"; do
    gi_chroot modprobe --show-depends --set-version "$GI_KVER" "$module" | awk '$1 == "insmod" { print $2 }'
  done | while read -r ko; do
    grep -qxF "$(basename "$ko")" "$GI_WORK/initramfs/lib/modules/"*.list 2>/dev/null && continue
    cp "$GI_ROOTFS$ko" "$GI_WORK/initramfs/lib/modules/"
    basename "$ko" >>"$GI_WORK/initramfs/lib/modules/$list.list"
  done
}

# Not initramfs-tools': its udevd and coldplug cost seconds under TCG. Static busybox, the storage modules
# and lab/guest-image/initramfs/init, uncompressed (nothing to decompress under TCG; a few MiB on the ESP).
gi_initramfs() {
  GI_KVER="$(ls "$GI_ROOTFS/lib/modules")"
  gi_step "making the initramfs for kernel $GI_KVER (busybox; modules: $GI_INITRAMFS_FIRST, then $GI_INITRAMFS_MORE)"
  local dir="$GI_WORK/initramfs"
  mkdir -p "$dir/bin" "$dir/dev" "$dir/lib/modules"
  cp "$GI_ROOTFS/bin/busybox" "$dir/bin/busybox"
  cp "$GUEST_IMAGE_INITRAMFS/init" "$dir/init"
  chmod 0755 "$dir/init" "$dir/bin/busybox"
  mknod -m 0600 "$dir/dev/console" c 5 1
  gi_module_list first $GI_INITRAMFS_FIRST
  gi_module_list more $GI_INITRAMFS_MORE
  gi_module_list esp vfat nls_cp437 nls_ascii nls_utf8
  mkdir -p "$dir/etc"
  echo "$GI_ESP_FSID" >"$dir/etc/ferry-esp-uuid"
  (cd "$dir" && find . | LC_ALL=C sort | "$GI_ROOTFS/bin/busybox" cpio -o -H newc 2>>"$GI_LOG") >"$GI_WORK/initrd.img" ||
    die_with_log "$GI_LOG" "could not make the guest's initramfs"
}

gi_record_versions() {
  GI_VERSIONS="$(gi_chroot dpkg-query -W -f='"${Package}": "${Version}",' \
    "linux-image-$GI_KVER" qemu-guest-agent systemd udev base-files | sed 's/,$//')"
}

gi_trim() {
  gi_step "trimming the root (apt caches and lists, docs, man pages, locales)"
  rm -rf "$GI_ROOTFS"/var/cache/apt/archives/*.deb "$GI_ROOTFS"/var/cache/apt/*.bin "$GI_ROOTFS"/var/lib/apt/lists/* \
    "$GI_ROOTFS"/usr/share/doc/* "$GI_ROOTFS"/usr/share/man/* "$GI_ROOTFS"/usr/share/info/* \
    "$GI_ROOTFS"/usr/share/locale/* "$GI_ROOTFS"/var/log/*.log "$GI_ROOTFS"/var/log/apt/* "$GI_ROOTFS"/tmp/*
  # The kernel and initramfs live on the ESP (both boot loaders read them there).
  mv "$GI_ROOTFS/boot/vmlinuz-$GI_KVER" "$GI_WORK/vmlinuz"
}

gi_esp() {
  gi_step "making the ESP: systemd-boot for OVMF, syslinux for SeaBIOS, kernel and initramfs"
  local esp="$GI_WORK/esp.img" cmdline="root=UUID=$GI_ROOT_UUID $GI_CMDLINE_EXTRA"
  # -h: hidden sectors = the partition's start, as a partitioning tool would write it.
  mkfs.vfat -n FERRY-ESP -i "${GI_ESP_FSID/-/}" -h $((GI_ESP_START_MIB * 2048)) -C "$esp" $((GI_ESP_MIB * 1024)) >>"$GI_LOG"
  mkdir -p "$GI_WORK/esp/EFI/BOOT" "$GI_WORK/esp/loader/entries" "$GI_WORK/esp/syslinux" "$GI_WORK/esp/ferry"
  cp /usr/lib/systemd/boot/efi/systemd-bootx64.efi "$GI_WORK/esp/EFI/BOOT/BOOTX64.EFI"
  printf 'default ferry.conf\ntimeout 0\nconsole-mode keep\n' >"$GI_WORK/esp/loader/loader.conf"
  printf 'title ferry guest (Debian 12)\nlinux /vmlinuz\ninitrd /initrd.img\noptions %s\n' "$cmdline" \
    >"$GI_WORK/esp/loader/entries/ferry.conf"
  printf 'SERIAL 0 115200\nDEFAULT ferry\nPROMPT 0\nTIMEOUT 0\nLABEL ferry\n  LINUX /vmlinuz\n  INITRD /initrd.img\n  APPEND %s\n' \
    "$cmdline" >"$GI_WORK/esp/syslinux/syslinux.cfg"
  cat >"$GI_WORK/esp/ferry/README.txt" <<'EOF'
ferry lab guest: put this VM's settings in ferry/vm.conf (KEY=VALUE lines), read at boot by
ferry-guest-config.service: HOSTNAME, DNS, NIC<n>_MAC, NIC<n>_ADDRESS (CIDR), NIC<n>_GATEWAY (n = 0..9).
EOF
  cp "$GI_WORK/vmlinuz" "$GI_WORK/initrd.img" "$GI_WORK/esp/"
  MTOOLS_SKIP_CHECK=1 mcopy -s -i "$esp" "$GI_WORK"/esp/* ::/
}

# gi_disk VARIANT NIC_MATCH: root filesystem, GPT disk, boot loaders, VMDK for one variant.
gi_disk() {
  local variant="$1" match="$2"
  local raw="$GI_WORK/out/ferry-guest-$variant.raw" root="$GI_WORK/root-$variant.img"
  gi_step "variant $variant (NIC match: $match): ext4 root, GPT disk with BIOS and UEFI boot, VMDK"
  echo "$match" >"$GI_ROOTFS/etc/ferry/nic-match"
  rm -f "$root"
  mke2fs -q -F -t ext4 -b 4096 -L ferry-root -U "$GI_ROOT_UUID" -E lazy_itable_init=1,lazy_journal_init=1 \
    -d "$GI_ROOTFS" "$root" "${GI_ROOT_MIB}M" >>"$GI_LOG" 2>&1 || die_with_log "$GI_LOG" "mke2fs of the guest root failed"
  rm -f "$raw"
  truncate -s "${GI_DISK_MIB}M" "$raw"
  sgdisk -o "$raw" >>"$GI_LOG" 2>&1
  sgdisk -n "1:$((GI_ESP_START_MIB * 2048)):+${GI_ESP_MIB}M" -t 1:ef00 -c 1:ferry-esp "$raw" >>"$GI_LOG" 2>&1
  sgdisk -A 1:set:2 "$raw" >>"$GI_LOG" 2>&1 # legacy BIOS bootable: gptmbr.bin boots this partition
  sgdisk -n "2:$((GI_ROOT_START_MIB * 2048)):+${GI_ROOT_MIB}M" -t 2:8300 -c 2:ferry-root "$raw" >>"$GI_LOG" 2>&1
  sgdisk -p "$raw" | grep -q ferry-root || die_with_log "$GI_LOG" "could not partition the guest's disk"
  dd if="$GI_WORK/esp.img" of="$raw" bs=1M seek="$GI_ESP_START_MIB" conv=notrunc,sparse status=none
  dd if="$root" of="$raw" bs=1M seek="$GI_ROOT_START_MIB" conv=notrunc,sparse status=none
  rm -f "$root"
  MTOOLS_SKIP_CHECK=1 syslinux --install --directory /syslinux --offset $((GI_ESP_START_MIB * 1048576)) "$raw" >>"$GI_LOG" 2>&1 ||
    die_with_log "$GI_LOG" "syslinux could not be installed on the guest's ESP"
  dd if=/usr/lib/syslinux/mbr/gptmbr.bin of="$raw" bs=440 count=1 conv=notrunc status=none
  qemu-img convert -q -f raw -O vmdk -o subformat=monolithicFlat,adapter_type=lsilogic \
    "$raw" "$GI_WORK/out/ferry-guest-$variant.vmdk"
  qemu-img compare -q -f raw -F vmdk "$raw" "$GI_WORK/out/ferry-guest-$variant.vmdk" ||
    die "the guest's VMDK ($variant) differs from its raw disk"
}

gi_manifest() {
  local out="$GI_WORK/out"
  cp "$GI_WORK/vmlinuz" "$out/vmlinuz"
  cat >"$out/manifest.json" <<EOF
{
  "key": "$GUEST_IMAGE_KEY",
  "debian": "$GUEST_IMAGE_SUITE",
  "kernel": "$GI_KVER",
  "packages": { $GI_VERSIONS },
  "diskBytes": $((GI_DISK_MIB * 1048576)),
  "esp": { "offsetBytes": $((GI_ESP_START_MIB * 1048576)), "sizeBytes": $((GI_ESP_MIB * 1048576)), "fsid": "$GI_ESP_FSID", "vmConfPath": "ferry/vm.conf" },
  "root": { "offsetBytes": $((GI_ROOT_START_MIB * 1048576)), "sizeBytes": $((GI_ROOT_MIB * 1048576)), "uuid": "$GI_ROOT_UUID" },
  "cmdline": "root=UUID=$GI_ROOT_UUID $GI_CMDLINE_EXTRA",
  "probe": { "port": 8080, "banner": "ferry-guest-probe" },
  "variants": {
    "mac": { "nicMatch": "mac", "raw": "ferry-guest-mac.raw", "vmdk": "ferry-guest-mac.vmdk", "flat": "ferry-guest-mac-flat.vmdk" },
    "ens192": { "nicMatch": "name ens192 ens224 ens256", "raw": "ferry-guest-ens192.raw", "vmdk": "ferry-guest-ens192.vmdk", "flat": "ferry-guest-ens192-flat.vmdk" }
  },
  "buildSeconds": $((SECONDS - GI_STARTED))
}
EOF
}

# Runs in a subshell: its EXIT trap removes the work folder (a debootstrapped tree) on success and failure.
install_guest_image() (
  [ -f "$GUEST_IMAGE_DIR/.complete" ] && exit 0
  [ "$(id -u)" -eq 0 ] || die "building the lab's guest image needs root (debootstrap, chroot); run scripts/setup.sh as root once"
  GI_STARTED=$SECONDS
  GI_WORK="$(mktemp -d "$FERRY_CACHE/.guest-image-build.XXXXXX")"
  trap 'rm -rf "$GI_WORK"' EXIT
  GI_ROOTFS="$GI_WORK/rootfs"
  # Outside the work folder (removed on failure), so that the log a failure names stays.
  GI_LOG="$SETUP_LOG_DIR/guest-image-build.log"
  mkdir -p "$GI_WORK/out"
  GI_ROOT_UUID="$(cat /proc/sys/kernel/random/uuid)"
  GI_ESP_FSID="$(od -An -N4 -tx1 /dev/urandom | tr -d ' \n' | tr a-f A-F | sed 's/^\(....\)/\1-/')"
  log "building the lab's guest image $GUEST_IMAGE_KEY into $GUEST_IMAGE_DIR (a few minutes, once)"
  gi_debootstrap
  gi_configure
  gi_initramfs
  gi_record_versions
  gi_trim
  gi_esp
  gi_disk mac mac
  gi_disk ens192 "name ens192 ens224 ens256"
  gi_manifest
  cp "$GI_LOG" "$GI_WORK/out/build.log"
  rm -rf "$GUEST_IMAGE_DIR"
  mv "$GI_WORK/out" "$GUEST_IMAGE_DIR"
  touch "$GUEST_IMAGE_DIR/.complete"
  log "guest image built in $((SECONDS - GI_STARTED)) s: $(du -sh --apparent-size "$GUEST_IMAGE_DIR/ferry-guest-mac.raw" | cut -f1) raw, $(du -sh "$GUEST_IMAGE_DIR/ferry-guest-mac.raw" | cut -f1) on disk"
)

if [ ! -f "$GUEST_IMAGE_DIR/.complete" ]; then
  with_lock "guest-image-$GUEST_IMAGE_KEY" install_guest_image
fi
ln -sfn "$GUEST_IMAGE_DIR" "$ROOT/.tools/guest-image"

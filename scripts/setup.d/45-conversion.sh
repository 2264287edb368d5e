# debian: virt-v2v guestfs-tools guestfish nbdkit debootstrap gdisk parted dosfstools e2fsprogs qemu-utils
# supermin builds the libguestfs appliance from the host's kernel (a container has none in /boot):
# debian-unless /boot/vmlinuz-*: linux-image-cloud-amd64
# Guest conversion (migration.conversion) and the lab's VMware-native guests.
#
# 1. The converter a ferry-convert worker runs: Debian's virt-v2v 2.2 (virt-v2v-in-place), guestfs-tools
#    (virt-customize), nbdkit (virt-v2v's `-i disk` needs it) and a kernel for libguestfs's appliance
#    (supermin builds the appliance from the host's kernel; a container has none in /boot).
# 2. The packages ferry installs into a converted Debian 12 guest that has no guest agent (virt-v2v itself
#    would install qemu-guest-agent at first boot from the network, which a migration network often is
#    not): qemu-guest-agent and what it needs beyond a minimal Debian, cached as
#    $FERRY_CACHE/guest-agent-packages-<version>/debian-12/*.deb (linked as .tools/guest-agent-packages).
# 3. The lab's VMware-native guest: Debian 12 installed as on VMware, in two firmware variants, so that it
#    does not boot on Proxmox unconverted and does once converted:
#      vmware-bios  MBR, one ext4 root; GRUB 2 (grub-pc) in the MBR gap
#      vmware-efi   GPT, ESP (/boot/efi) + ext4 root; GRUB 2 (grub-efi-amd64) at EFI/debian/grubx64.efi,
#                   without the removable-media path EFI/BOOT/BOOTX64.EFI (Debian's default: the firmware
#                   boots it through a boot entry in NVRAM, which does not travel with the disks)
#    Both: open-vm-tools; ifupdown with `allow-hotplug ens192` (and ens224) and the VM's static address;
#    initramfs-tools with MODULES=list of VMware's drivers (vmw_pvscsi, vmxnet3), as MODULES=dep makes it
#    on a VMware VM: no virtio driver, so on virtio-scsi the root is never found. GRUB is installed by the
#    guest's own grub-install and update-grub, run in a libguestfs appliance (no loop device, no mount).
#    Per-VM settings (host name, addresses, machine-id) go into the root file system of each VM's copy
#    (lab/vmware-guest/per-vm-config.ts, debugfs at the partition's offset).
#
# Cache layout ($FERRY_CACHE/vmware-guest-$VMW_GUEST_KEY, linked as .tools/vmware-guest):
#   vmware-<firmware>.vmdk + vmware-<firmware>-flat.vmdk   manifest.json   build.log   .complete
VMW_GUEST_VERSION=1
VMW_GUEST_SUITE=bookworm
VMW_GUEST_MIRROR="${FERRY_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
VMW_GUEST_RECIPE="$ROOT/lab/vmware-guest/recipe"
VMW_GUEST_KEY="$VMW_GUEST_VERSION-$(cat "${BASH_SOURCE[0]}" $(find "$VMW_GUEST_RECIPE" -type f | LC_ALL=C sort) | sha256sum | cut -c1-12)"
VMW_GUEST_DIR="$FERRY_CACHE/vmware-guest-$VMW_GUEST_KEY"
VMW_DISK_MIB=768
VMW_ESP_MIB=64
# console=ttyS0: the lab reads the serial log. mitigations=off and no_timer_check as for the lab image (a
# TCG guest on a loaded host; see 40-guest-image.sh). The rest is Debian's GRUB as installed.
VMW_CMDLINE="console=tty0 console=ttyS0,115200n8 mitigations=off no_timer_check"
# Beyond a minimal Debian 12, qemu-guest-agent needs these (libglib2.0-0 and libudev1 it finds there).
GUEST_AGENT_DEBS="qemu-guest-agent liburing2 libnuma1"

# Under TCG: KVM does not boot Linux guests on these machines (docs/lab.md); ferry's workers probe.
vmw_guestfs_env() { export LIBGUESTFS_BACKEND=direct LIBGUESTFS_BACKEND_SETTINGS=force_tcg; }

install_guest_agent_packages() (
  local version dir
  version="$(apt-cache policy qemu-guest-agent | awk '/Candidate:/ { print $2 }' | tr ':+~' '___')"
  [ -n "$version" ] || die "apt knows no qemu-guest-agent package"
  dir="$FERRY_CACHE/guest-agent-packages-$version"
  if [ ! -f "$dir/.complete" ]; then
    log "downloading $GUEST_AGENT_DEBS for converted Debian 12 guests into $dir"
    rm -rf "$dir" && mkdir -p "$dir/debian-12"
    # apt's sandbox user cannot write into root's cache: download in a folder it may write to, then move.
    local tmp
    tmp="$(mktemp -d)" && chmod 0777 "$tmp"
    (cd "$tmp" && apt-get download -q $GUEST_AGENT_DEBS >/dev/null) || {
      apt-get update -q >/dev/null && (cd "$tmp" && apt-get download -q $GUEST_AGENT_DEBS >/dev/null)
    } || die "could not download $GUEST_AGENT_DEBS"
    mv "$tmp"/*.deb "$dir/debian-12/" && rm -rf "$tmp"
    touch "$dir/.complete"
  fi
  ln -sfn "$dir" "$ROOT/.tools/guest-agent-packages"
)

vmw_step() { log "VMware-native guest: $*"; }
vmw_chroot() {
  local root="$1"
  shift
  chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
}

vmw_debootstrap() {
  vmw_step "debootstrap Debian 12 minbase + the cloud kernel, systemd, ifupdown, open-vm-tools (about a minute)"
  # INITRD=No: the initramfs is made once it is configured (MODULES=list), below.
  INITRD=No debootstrap --variant=minbase \
    --include=systemd-sysv,udev,dbus,linux-image-cloud-amd64,initramfs-tools,ifupdown,iproute2,open-vm-tools,busybox-static,kmod,zstd \
    "$VMW_GUEST_SUITE" "$VMW_ROOTFS" "$VMW_GUEST_MIRROR" >>"$VMW_LOG" 2>&1 ||
    die_with_log "$VMW_LOG" "debootstrap of the VMware-native guest failed"
}

# vmw_configure ROOT: what a Debian installer on VMware leaves behind, with the lab's probe service.
vmw_configure() {
  local root="$1"
  vmw_step "configuring: ifupdown, initramfs for VMware's drivers, GRUB defaults, the probe on TCP 8080"
  tar -C "$VMW_GUEST_RECIPE/overlay" --owner=0 --group=0 -cf - . | tar -C "$root" --no-overwrite-dir -xf -
  install -m 0644 "$ROOT/lab/guest-image/overlay/etc/systemd/system/ferry-probe.service" "$root/etc/systemd/system/"
  install -D -m 0755 "$ROOT/lab/guest-image/overlay/usr/local/sbin/ferry-probe" "$root/usr/local/sbin/ferry-probe"
  echo vmware-guest >"$root/etc/hostname"
  sed -i 's/^MODULES=.*/MODULES=list/' "$root/etc/initramfs-tools/initramfs.conf"
  sed -i "s|^GRUB_TIMEOUT=.*|GRUB_TIMEOUT=0|; s|^GRUB_CMDLINE_LINUX_DEFAULT=.*|GRUB_CMDLINE_LINUX_DEFAULT=\"\"|; s|^GRUB_CMDLINE_LINUX=.*|GRUB_CMDLINE_LINUX=\"$VMW_CMDLINE\"|" \
    "$root/etc/default/grub"
  printf 'GRUB_TERMINAL="console serial"\nGRUB_SERIAL_COMMAND="serial --speed=115200"\n' >>"$root/etc/default/grub"
  : >"$root/etc/machine-id"
  rm -f "$root/var/lib/dbus/machine-id"
  vmw_chroot "$root" systemctl enable --quiet networking.service open-vm-tools.service ferry-probe.service
  # Timers nothing in the lab waits for (each costs seconds of a TCG boot).
  vmw_chroot "$root" systemctl mask --quiet apt-daily.timer apt-daily-upgrade.timer dpkg-db-backup.timer \
    e2scrub_all.timer e2scrub_reap.service fstrim.timer systemd-tmpfiles-clean.timer
}

# vmw_install_grub_package ROOT PACKAGE...: the distribution's GRUB packages, with grub-install and
# update-grub kept from running here (there is no disk yet: they run in the appliance once there is).
vmw_install_grub_package() {
  local root="$1" tool
  shift
  for tool in grub-install update-grub grub-probe; do
    vmw_chroot "$root" dpkg-divert --quiet --local --rename --add "/usr/sbin/$tool"
    ln -sf /bin/true "$root/usr/sbin/$tool"
  done
  printf 'grub-pc grub-pc/install_devices_empty boolean true\ngrub-pc grub-pc/install_devices multiselect\n' |
    vmw_chroot "$root" debconf-set-selections
  vmw_chroot "$root" apt-get install -y -q --no-install-recommends "$@" >>"$VMW_LOG" 2>&1 ||
    die_with_log "$VMW_LOG" "could not install $* in the VMware-native guest"
  for tool in grub-install update-grub grub-probe; do
    rm -f "$root/usr/sbin/$tool"
    vmw_chroot "$root" dpkg-divert --quiet --local --rename --remove "/usr/sbin/$tool"
  done
}

vmw_trim() {
  local root="$1"
  rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/cache/apt/*.bin "$root"/var/lib/apt/lists/* \
    "$root"/usr/share/doc/* "$root"/usr/share/man/* "$root"/usr/share/info/* "$root"/usr/share/locale/* \
    "$root"/var/log/*.log "$root"/var/log/apt/* "$root"/tmp/*
}

# vmw_variant FIRMWARE: one disk, from a copy of the configured root.
vmw_variant() {
  local firmware="$1" root="$VMW_WORK/root-$1" raw="$VMW_WORK/vmware-$1.raw" rootimg="$VMW_WORK/rootfs-$1.img"
  local root_uuid esp_fsid root_start_mib=1 root_mib packages
  root_uuid="$(cat /proc/sys/kernel/random/uuid)"
  vmw_step "variant $firmware: GRUB package, initramfs, disk, grub-install in an appliance, VMDK"
  cp -a "$VMW_ROOTFS" "$root"
  # On amd64 Debian's installer adds the signed GRUB and shim: grub-install then puts shimx64.efi, the signed
  # grubx64.efi and a grub.cfg that loads /boot/grub/grub.cfg into EFI/debian (virt-v2v 2.2 finds GRUB there).
  if [ "$firmware" = efi ]; then packages="grub-efi-amd64 grub-efi-amd64-signed shim-signed"; else packages=grub-pc; fi
  vmw_install_grub_package "$root" $packages
  vmw_configure "$root"
  printf 'UUID=%s / ext4 errors=remount-ro 0 1\n' "$root_uuid" >"$root/etc/fstab"
  if [ "$firmware" = efi ]; then
    esp_fsid="$(od -An -N4 -tx1 /dev/urandom | tr -d ' \n' | tr a-f A-F | sed 's/^\(....\)/\1-/')"
    printf 'UUID=%s /boot/efi vfat umask=0077 0 1\n' "$esp_fsid" >>"$root/etc/fstab"
    mkdir -p "$root/boot/efi"
    root_start_mib=$((1 + VMW_ESP_MIB))
  fi
  vmw_chroot "$root" update-initramfs -c -k all >>"$VMW_LOG" 2>&1 || die_with_log "$VMW_LOG" "update-initramfs failed in the VMware-native guest"
  if vmw_chroot "$root" sh -c 'lsinitramfs /boot/initrd.img-*' | grep -q '/virtio'; then die "the VMware-native guest's initramfs has virtio modules"; fi
  [ "$firmware" = bios ] && VMW_PACKAGES="$(vmw_chroot "$root" dpkg-query -W -f='"${Package}": "${Version}",' \
    linux-image-cloud-amd64 open-vm-tools ifupdown initramfs-tools grub-common systemd | sed 's/,$//')"
  VMW_KERNEL="$(ls "$root/lib/modules")"
  vmw_trim "$root"
  # The last MiB stays free: GPT keeps its backup table there.
  root_mib=$((VMW_DISK_MIB - root_start_mib - 1))
  mke2fs -q -F -t ext4 -b 4096 -L root -U "$root_uuid" -d "$root" "$rootimg" "${root_mib}M" >>"$VMW_LOG" 2>&1 ||
    die_with_log "$VMW_LOG" "mke2fs of the VMware-native guest's root failed"
  rm -rf "$root"
  rm -f "$raw" && truncate -s "${VMW_DISK_MIB}M" "$raw"
  if [ "$firmware" = efi ]; then
    sgdisk -o -n "1:2048:+${VMW_ESP_MIB}M" -t 1:ef00 -c 1:EFI -n "2:$((root_start_mib * 2048)):+${root_mib}M" -t 2:8300 "$raw" >>"$VMW_LOG" 2>&1
    mkfs.vfat -i "${esp_fsid/-/}" -h 2048 -C "$VMW_WORK/esp.img" $((VMW_ESP_MIB * 1024)) >>"$VMW_LOG"
    dd if="$VMW_WORK/esp.img" of="$raw" bs=1M seek=1 conv=notrunc,sparse status=none && rm -f "$VMW_WORK/esp.img"
  else
    parted -s "$raw" mklabel msdos mkpart primary ext4 1MiB "$((1 + root_mib))MiB" set 1 boot on >>"$VMW_LOG" 2>&1 ||
      die_with_log "$VMW_LOG" "parted could not partition the VMware-native guest's disk"
  fi
  dd if="$rootimg" of="$raw" bs=1M seek="$root_start_mib" conv=notrunc,sparse status=none && rm -f "$rootimg"
  # The disk is the one holding the guest's root, as grub-probe finds it: never a fixed /dev/sda. The
  # appliance's kernel names its disks in the order their asynchronous SCSI scan ends, so under load the
  # appliance's own root (an unpartitioned ext2 disk) can be sda (libguestfs/libguestfs#69); grub-install
  # then failed with "ext2 doesn't support embedding ... required for cross-disk install".
  local install=(sh 'grub-install --target=i386-pc "$(grub-probe --target=disk /)"')
  [ "$firmware" = efi ] && install=(command "grub-install --target=x86_64-efi --efi-directory=/boot/efi --bootloader-id=debian --no-nvram")
  # -i: inspection mounts the root and, from its fstab, the ESP, as the installed system sees them.
  vmw_guestfs_env
  guestfish -a "$raw" -i "${install[@]}" : command update-grub >>"$VMW_LOG" 2>&1 ||
    die_with_log "$VMW_LOG" "grub-install or update-grub failed in the VMware-native guest ($firmware)"
  if [ "$firmware" = bios ] && ! head -c 512 "$raw" | grep -aq GRUB; then
    die_with_log "$VMW_LOG" "grub-install ran, but the VMware-native guest's MBR holds no GRUB"
  fi
  qemu-img convert -q -f raw -O vmdk -o subformat=monolithicFlat,adapter_type=lsilogic "$raw" "$VMW_WORK/out/vmware-$firmware.vmdk"
  rm -f "$raw"
  # manifest.json entries: where per-VM settings are written (the root file system) and what boots it.
  VMW_VARIANTS+=("\"$firmware\": { \"vmdk\": \"vmware-$firmware.vmdk\", \"flat\": \"vmware-$firmware-flat.vmdk\", \"root\": { \"offsetBytes\": $((root_start_mib * 1048576)), \"uuid\": \"$root_uuid\" }$([ "$firmware" != efi ] || printf ', "esp": { "fsid": "%s" }' "$esp_fsid") }")
}

# Runs in a subshell: its EXIT trap removes the work folder on success and failure.
install_vmware_guest() (
  [ -f "$VMW_GUEST_DIR/.complete" ] && exit 0
  [ "$(id -u)" -eq 0 ] || die "building the lab's VMware-native guest needs root (debootstrap, chroot); run scripts/setup.sh as root once"
  local started=$SECONDS
  VMW_WORK="$(mktemp -d "$FERRY_CACHE/.vmware-guest-build.XXXXXX")"
  trap 'rm -rf "$VMW_WORK"' EXIT
  VMW_ROOTFS="$VMW_WORK/rootfs"
  # Outside the work folder (removed on failure), so that the log a failure names stays.
  VMW_LOG="$SETUP_LOG_DIR/vmware-guest-build.log"
  : >"$VMW_LOG"
  VMW_VARIANTS=()
  mkdir -p "$VMW_WORK/out"
  log "building the lab's VMware-native guest $VMW_GUEST_KEY into $VMW_GUEST_DIR (a few minutes, once)"
  vmw_debootstrap
  vmw_variant bios
  vmw_variant efi
  local IFS=,
  cat >"$VMW_WORK/out/manifest.json" <<EOF
{
  "key": "$VMW_GUEST_KEY",
  "debian": "$VMW_GUEST_SUITE",
  "kernel": "$VMW_KERNEL",
  "packages": { $VMW_PACKAGES },
  "diskBytes": $((VMW_DISK_MIB * 1048576)),
  "cmdline": "$VMW_CMDLINE",
  "probe": { "port": 8080, "banner": "ferry-guest-probe" },
  "nicNames": ["ens192", "ens224", "ens256"],
  "variants": { ${VMW_VARIANTS[*]} },
  "buildSeconds": $((SECONDS - started))
}
EOF
  cp "$VMW_LOG" "$VMW_WORK/out/build.log"
  rm -rf "$VMW_GUEST_DIR"
  mv "$VMW_WORK/out" "$VMW_GUEST_DIR"
  touch "$VMW_GUEST_DIR/.complete"
  log "VMware-native guest built in $((SECONDS - started)) s"
)

# build_guestfs_appliance: supermin's appliance, built once from the host's packages (all installed before
# any part runs) and checked by one boot, before the first guestfish that needs it; cached by libguestfs
# in /var/tmp/.guestfs-<uid> and rebuilt by it only when the host's packages change.
build_guestfs_appliance() {
  compgen -G "/var/tmp/.guestfs-$(id -u)/appliance.d/kernel" >/dev/null && return 0
  local appliance_log="$SETUP_LOG_DIR/guestfs-appliance.log" began=$SECONDS
  log "building the libguestfs appliance from this machine's packages (once)"
  (vmw_guestfs_env && guestfish -a /dev/null run) >>"$appliance_log" 2>&1 ||
    die_with_log "$appliance_log" "the libguestfs appliance could not be built or booted (libguestfs-test-tool tells more)"
  log "libguestfs appliance built and booted in $((SECONDS - began)) s"
}

with_lock guest-agent-packages install_guest_agent_packages
if [ ! -f "$VMW_GUEST_DIR/.complete" ]; then
  with_lock guestfs-appliance build_guestfs_appliance
  with_lock "vmware-guest-$VMW_GUEST_KEY" install_vmware_guest
fi
ln -sfn "$VMW_GUEST_DIR" "$ROOT/.tools/vmware-guest"

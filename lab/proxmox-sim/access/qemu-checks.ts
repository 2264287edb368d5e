import { parsePropertyString } from '../../../src/proxmox/property-string';
import { fail, paramError } from '../api-error';
import type { Cluster } from '../cluster';
import { permissionDenied, type PermissionChecker } from './permissions';
import { checkVolumeAccess } from './volume-access';

/**
 * The permission checks qemu-server's API2/Qemu.pm makes in code (create_vm, update_vm_api, clone_vm,
 * move_vm_disk) on top of the method's `permissions`: which VM.Config.* privilege each option needs
 * ($check_vm_modify_config_perm), Datastore.AllocateSpace for each new disk and access to each
 * existing or imported volume ($check_storage_access), SDN.Use on each bridge or VLAN a NIC uses
 * (check_bridge_access → pve-guest-common's check_vnet_access), and which drives need VM.Config.Disk,
 * VM.Config.CDROM or VM.Config.Cloudinit. root@pam skips them, as in PVE.
 */
const DRIVE = /^(ide\d+|sata\d+|scsi\d+|virtio\d+|efidisk0|tpmstate0)$/;
const NEW_DISK = /^(([^:]+):)?(\d+(\.\d+)?)$/;

const OPTION_PRIVS: Array<[RegExp | Set<string>, string[], boolean?]> = [
  [
    new Set(['cores', 'cpu', 'runningcpu', 'cpulimit', 'cpuunits', 'numa', 'smp', 'sockets', 'vcpus']),
    ['VM.Config.CPU'],
  ],
  [/^numa\d+$/, ['VM.Config.CPU']],
  [new Set(['memory', 'balloon', 'shares', 'allow-ksm']), ['VM.Config.Memory']],
  [
    new Set([
      'acpi',
      'hotplug',
      'kvm',
      'machine',
      'runningmachine',
      'scsihw',
      'smbios1',
      'tablet',
      'vga',
      'watchdog',
      'audio0',
      'rng0',
    ]),
    ['VM.Config.HWType'],
  ],
  [
    new Set([
      'agent',
      'autostart',
      'bios',
      'description',
      'keyboard',
      'localtime',
      'migrate_downtime',
      'migrate_speed',
      'name',
      'onboot',
      'ostype',
      'protection',
      'reboot',
      'startdate',
      'startup',
      'tdf',
      'template',
    ]),
    ['VM.Config.Options'],
  ],
  [new Set(['freeze']), ['VM.PowerMgmt']],
  [new Set(['boot', 'bootdisk', 'vmstatestorage']), ['VM.Config.Disk']],
  [/^net\d+$|^running-nets-host-mtu$/, ['VM.Config.Network']],
  [
    /^(cicustom|cipassword|citype|ciuser|ciupgrade|nameserver|searchdomain|sshkeys|ipconfig\d+)$/,
    ['VM.Config.Cloudinit', 'VM.Config.Network'],
    true,
  ],
  [new Set(['vmstate']), ['VM.Config.Disk', 'VM.PowerMgmt']],
];

/** Options whose permission depends on the value, checked elsewhere (drives, devices, tags). */
const CHECKED_ELSEWHERE =
  /^(ide\d+|sata\d+|scsi\d+|virtio\d+|efidisk0|tpmstate0|cdrom|tags|(unused|serial|usb|hostpci|virtiofs)\d+)$/;

/** $check_vm_modify_config_perm. */
export function checkModifyConfigPerm(
  perm: PermissionChecker,
  vmid: string,
  pool: string | undefined,
  keys: string[],
): void {
  if (perm.isRoot) return;
  for (const key of keys) {
    if (CHECKED_ELSEWHERE.test(key)) continue;
    const rule = OPTION_PRIVS.find(([match]) => (match instanceof Set ? match.has(key) : match.test(key)));
    if (!rule) throw fail(`only root can set '${key}' config`);
    perm.checkVm(vmid, pool, rule[1], rule[2] ?? false);
    if (key === 'startup') perm.check('/', ['Sys.Modify']);
  }
}

const isCdrom = (value: string) => /(^|,)media=cdrom(,|$)/.test(value);
/** drive_is_cloudinit: the volume is a `cloudinit` one. */
const isCloudinit = (value: string) =>
  /[:/](?:vm-\d+-)?cloudinit(?:\.(?:raw|qcow2|vmdk))?$/.test(parsePropertyString(value, 'file').file ?? '');

/** $check_storage_access over the drives of a create or update. */
export function checkStorageAccess(
  cluster: Cluster,
  perm: PermissionChecker,
  vmid: string,
  settings: Record<string, string>,
  defaultStorage?: string,
): void {
  if (perm.isRoot) return;
  for (const [key, value] of Object.entries(settings)) {
    if (!DRIVE.test(key)) continue;
    const drive = parsePropertyString(value, 'file');
    const volid = drive.file ?? '';
    const cdrom = isCdrom(value);
    if (!volid || volid === 'none' || volid === 'cloudinit' || /^[^:]+:cloudinit$/.test(volid)) {
      // nothing to check
    } else if (cdrom && volid === 'cdrom') perm.check('/', ['Sys.Console']);
    else if (!cdrom && NEW_DISK.test(volid)) {
      const storeid = NEW_DISK.exec(volid)![2] ?? defaultStorage;
      if (!storeid) throw fail('no storage ID specified (and no default storage)');
      perm.check(`/storage/${storeid}`, ['Datastore.AllocateSpace']);
      if (!cluster.storages.get(storeid)?.content.includes('images'))
        throw paramError({ storage: `storage '${storeid}' does not support vm images` });
    } else checkVolumeAccess(perm, volid, vmid);
    const source = drive['import-from'];
    if (source) {
      const owner = /^[^:]+:(?:\d+\/)?(?:vm|base)-(\d+)-/.exec(source)?.[1];
      if (owner) perm.check(`/vms/${owner}`, ['VM.Clone']);
      else checkVolumeAccess(perm, source, vmid);
    }
  }
  for (const [key, value] of Object.entries(settings))
    if (/^unused\d+$/.test(key)) checkVolumeAccess(perm, parsePropertyString(value, 'file').file ?? '', vmid, 'images');
  if (settings.vmstatestorage) perm.check(`/storage/${settings.vmstatestorage}`, ['Datastore.AllocateSpace']);
}

/** check_bridge_access: SDN.Use on the bridge (zone `localnetwork` unless an SDN vnet), or on each VLAN. */
export function checkBridgeAccess(cluster: Cluster, perm: PermissionChecker, config: Record<string, string>): void {
  if (perm.isRoot) return;
  for (const key of Object.keys(config).sort()) {
    if (!/^net\d+$/.test(key)) continue;
    const field = (name: string) => new RegExp(`(?:^|,)${name}=([^,]+)`).exec(config[key]!)?.[1];
    const net = { bridge: field('bridge'), tag: field('tag'), trunks: field('trunks') };
    const bridge = net.bridge;
    if (!bridge) continue;
    const zone = cluster.sdn.vnets[bridge]?.zone ?? 'localnetwork';
    const path = `/sdn/zones/${zone}/${bridge}`;
    const tags = [net.tag, ...(net.trunks ?? '').split(';').flatMap(vlanRange)].filter(Boolean) as string[];
    if (tags.length === 0) perm.check(path, ['SDN.Use']);
    for (const tag of tags) perm.check(`${path}/${tag}`, ['SDN.Use']);
  }
}

const vlanRange = (part: string): string[] => {
  const m = /^(\d+)(?:-(\d+))?$/.exec(part.trim());
  if (!m) return [];
  const [from, to] = [Number(m[1]), Number(m[2] ?? m[1])];
  return Array.from({ length: to - from + 1 }, (_, i) => String(from + i));
};

/** update_vm_api's drive checks: a cloud-init drive, a CD-ROM or a disk each need their own privilege. */
export function checkDrivePerms(perm: PermissionChecker, vmid: string, key: string, value: string): void {
  if (isCloudinit(value)) perm.checkVm(vmid, undefined, ['VM.Config.Cloudinit', 'VM.Config.CDROM']);
  else if (isCdrom(value)) perm.checkVm(vmid, undefined, ['VM.Config.CDROM']);
  else if (DRIVE.test(key)) perm.checkVm(vmid, undefined, ['VM.Config.Disk']);
}

/** create_vm: VM.Allocate on the VMID, or on the pool it goes to. */
export function checkVmAllocate(perm: PermissionChecker, vmid: string, pool: string | undefined): void {
  if (perm.has(`/vms/${vmid}`, ['VM.Allocate'])) return;
  if (pool && perm.has(`/pool/${pool}`, ['VM.Allocate'])) return;
  throw permissionDenied();
}

import { parsePropertyString } from '../../src/proxmox/property-string';
import { parseDiskSize } from '../../src/proxmox/disk-size';
import type { Cluster, SimContainer, SimVm } from './cluster';
import { logicalCpus } from './node-hardware';
import { memoryMiB } from './vm-config';

/**
 * Guest figures as PVE reports them: qemu-server's and pve-container's `vmstatus` (the node's guest
 * lists) and the rows pvestatd feeds into /cluster/resources and the pool member lists. A guest that
 * is not running uses no CPU or memory; a running one is shown using a quarter of its memory.
 */
const MiB = 1024 * 1024;

/** qemu-server's valid_drive_names_for_boot, in its order (IDE, SCSI, VirtIO, SATA). */
const BOOT_DRIVE = /^(ide[0-3]|scsi([12]?\d|30)|virtio(1[0-5]|\d)|sata[0-5])$/;

/** The disks `boot` names (or the legacy `bootdisk`), as qemu-server's get_bootdisks. */
function bootDisks(config: Record<string, string>): string[] {
  const boot = config.boot ? parsePropertyString(config.boot, 'legacy') : undefined;
  if (!boot || boot.legacy !== undefined) return config.bootdisk ? [config.bootdisk] : [];
  return (boot.order ?? '').split(/[,;\s]+/).filter((d) => BOOT_DRIVE.test(d));
}

/** qemu-server's bootdisk_size: the size of the first boot disk that is not a CD-ROM, else 0. */
export function bootDiskBytes(config: Record<string, string>): number {
  for (const key of bootDisks(config)) {
    if (!config[key]) continue;
    const drive = parsePropertyString(config[key], 'file');
    if (drive.media === 'cdrom' || !drive.file) continue;
    return drive.size ? parseDiskSize(drive.size) : 0;
  }
  return 0;
}

/** qemu-server's boot order for a new VM without one: first disk, first CD-ROM, every NIC (get_default_bootdevices). */
export function defaultBootOrder(config: Record<string, string>): string | undefined {
  const drives = Object.keys(config)
    .filter((k) => BOOT_DRIVE.test(k))
    .sort(bootDriveOrder);
  const isCdrom = (k: string) => parsePropertyString(config[k]!, 'file').media === 'cdrom';
  const devices = [
    drives.find((k) => !isCdrom(k)),
    drives.find(isCdrom),
    ...Object.keys(config)
      .filter((k) => /^net\d+$/.test(k))
      .sort((a, b) => Number(a.slice(3)) - Number(b.slice(3))),
  ];
  const order = devices.filter((d): d is string => d !== undefined);
  return order.length > 0 ? `order=${order.join(';')}` : undefined;
}

function bootDriveOrder(a: string, b: string): number {
  const rank = (k: string) =>
    ['ide', 'scsi', 'virtio', 'sata'].indexOf(/^[a-z]+/.exec(k)![0]) * 100 + Number(/\d+$/.exec(k)![0]);
  return rank(a) - rank(b);
}

export const vmUptime = (vm: SimVm) =>
  vm.status === 'running' && vm.startedMs !== undefined ? Math.floor((Date.now() - vm.startedMs) / 1000) : 0;

/** `sockets * cores` (capped at the node's CPUs), or `vcpus` when set. */
export function vmCpus(cluster: Cluster, vm: SimVm): number {
  if (vm.config.vcpus) return Number(vm.config.vcpus);
  const cpus = Number(vm.config.sockets ?? 1) * Number(vm.config.cores ?? 1);
  return Math.min(cpus, logicalCpus(cluster.hardware(vm.node)));
}

export const vmMaxmem = (vm: SimVm) => memoryMiB(vm.config) * MiB;

/** A row of `GET /nodes/{node}/qemu` (qemu-server's vmstatus; `full` adds the QMP status). */
export function qemuVmStatus(cluster: Cluster, vm: SimVm, full = false): Record<string, unknown> {
  const running = vm.status === 'running';
  const maxmem = vmMaxmem(vm);
  return {
    vmid: vm.vmid,
    status: vm.status,
    name: vm.config.name ?? `VM ${vm.vmid}`,
    cpus: vmCpus(cluster, vm),
    maxmem,
    maxdisk: bootDiskBytes(vm.config),
    disk: 0,
    uptime: vmUptime(vm),
    cpu: 0,
    mem: running ? Math.floor(maxmem / 4) : 0,
    netin: 0,
    netout: 0,
    diskread: 0,
    diskwrite: 0,
    ...(running ? { pid: 10000 + vm.vmid } : {}),
    ...(full ? { qmpstatus: running && vm.paused ? 'paused' : vm.status } : {}),
    ...(vm.config.template === '1' ? { template: 1 } : {}),
    ...(Object.keys(vm.config).some((k) => /^serial\d$/.test(k)) ? { serial: 1 } : {}),
    ...(vm.config.lock ? { lock: vm.config.lock } : {}),
    ...(vm.config.tags !== undefined ? { tags: vm.config.tags } : {}),
  };
}

const containerMaxmem = (ct: SimContainer) => (ct.memoryMiB ?? 512) * MiB;

/** A row of `GET /nodes/{node}/lxc` (pve-container's vmstatus). */
export function lxcStatus(cluster: Cluster, ct: SimContainer): Record<string, unknown> {
  const running = !ct.stopped;
  const maxdisk = ct.rootfsBytes ?? 4 * 1024 ** 3;
  return {
    vmid: ct.vmid,
    type: 'lxc',
    status: running ? 'running' : 'stopped',
    name: ct.name,
    cpus: ct.cores ?? logicalCpus(cluster.hardware(ct.node)),
    maxmem: containerMaxmem(ct),
    maxswap: (ct.swapMiB ?? 512) * MiB,
    maxdisk,
    disk: running ? Math.floor(maxdisk / 5) : 0,
    mem: running ? Math.floor(containerMaxmem(ct) / 4) : 0,
    swap: 0,
    uptime: running ? Math.floor((Date.now() - cluster.bootedMs) / 1000) : 0,
    cpu: 0,
    netin: 0,
    netout: 0,
    diskread: 0,
    diskwrite: 0,
    ...(running ? { pid: 20000 + ct.vmid } : {}),
  };
}

/** Memory the node's running guests are given (their maxmem), for the node's used memory. */
export function guestMemoryOnNode(cluster: Cluster, node: string): number {
  let bytes = 0;
  for (const vm of cluster.vms.values()) if (vm.node === node && vm.status === 'running') bytes += vmMaxmem(vm);
  for (const ct of cluster.containers) if (ct.node === node && !ct.stopped) bytes += containerMaxmem(ct);
  return bytes;
}

/** A guest row of /cluster/resources and of a pool's members (pve-manager's extract_vm_stats). */
export function guestResource(
  cluster: Cluster,
  guest: { kind: 'qemu'; vm: SimVm } | { kind: 'lxc'; ct: SimContainer },
): Record<string, unknown> {
  const stats = guest.kind === 'qemu' ? qemuVmStatus(cluster, guest.vm) : lxcStatus(cluster, guest.ct);
  const vmid = stats.vmid as number;
  const pool = cluster.poolOf(vmid);
  return {
    id: `${guest.kind}/${vmid}`,
    type: guest.kind,
    vmid,
    node: guest.kind === 'qemu' ? guest.vm.node : guest.ct.node,
    name: stats.name,
    status: stats.status,
    template: stats.template ?? 0,
    uptime: stats.uptime,
    maxcpu: stats.cpus,
    cpu: stats.cpu,
    maxmem: stats.maxmem,
    mem: stats.mem,
    maxdisk: stats.maxdisk,
    disk: stats.disk,
    netin: 0,
    netout: 0,
    diskread: 0,
    diskwrite: 0,
    ...(pool ? { pool } : {}),
    ...(stats.lock ? { lock: stats.lock } : {}),
    ...(stats.tags !== undefined ? { tags: stats.tags } : {}),
  };
}

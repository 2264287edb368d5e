import { parsePropertyString } from '../../../src/proxmox/property-string';
import { parseNic } from '../../../src/proxmox/nics';
import { parseHotplugFeatures } from '../hotplug-features';
import { memoryCommandLine } from './memory';

/**
 * A VM's config → the `qemu-system-x86_64` command line, wired as qemu-server's config_to_command does
 * (PVE/QemuServer.pm, QemuServer/DriveDevice.pm, QemuServer/OVMF.pm, QemuServer/Agent.pm), for Debian's
 * QEMU 7.2 in the lab. Pure: paths, volumes and the network plan come in, argv and the warnings PVE's
 * start task would print come out.
 *
 * What follows PVE: machine (`pc` / `q35`; single-threaded TCG when not on KVM), `-smp` from sockets/cores/vcpus
 * (with CPU hotplug: one vCPU and a `-device` per further one), `-m` from memory (with memory hotplug: the
 * static part, NUMA nodes and DIMMs, memory.ts), `-smbios type=1` from smbios1, vmgenid, the QMP monitor socket, the guest agent's
 * chardev + virtio-serial port (or isa-serial with `type=isa`), OVMF as read-only code + the efidisk as
 * the writable vars pflash (a temporary vars copy, with PVE's warning, when there is no efidisk), SCSI
 * controllers per `scsihw` (virtio-scsi-single: one virtio-scsi-pci per disk, `virtioscsiN`; others one
 * `scsihwN` per 7 or 256 units), AHCI controllers for `sataN`, the chipset IDE for `ideN` (q35's bus
 * numbering), `virtio-blk-pci` for `virtioN`, bootindex from `boot: order=` (from 100), NICs with their
 * model and MAC (`virtio-net-pci` for virtio, the model's own device otherwise; net0–net5 on PVE's PCI
 * slots 0x12–0x17 on i440fx, so Linux names them ens18…), the balloon device unless `balloon: 0`,
 * `-no-reboot` for `reboot: 0`, `args` appended.
 *
 * What the lab does differently (documented, not hidden):
 * - NICs are QEMU user-mode networks (`-netdev user,restrict=on`, loopback host forwards only) instead
 *   of tap devices on a bridge; see guest-network.ts.
 * - No `-daemonize`, no systemd scope, no qmeventd, no `-no-shutdown`: the simulator keeps QEMU as its
 *   child and QEMU exits itself when the guest powers off (what qmeventd's `quit` achieves on PVE).
 * - Drives use `cache=writeback` unless the drive sets `cache` (PVE's default is O_DIRECT `cache=none`,
 *   which the lab's folders, often tmpfs, refuse); no `aio=io_uring`.
 * - OVMF comes from Debian's `ovmf` (/usr/share/OVMF) and always uses the non-secure-boot code image
 *   (PVE uses the secboot code with SMM on q35 + 4m).
 * - No display: `-vga none -display none`; serial port 0 goes to a log file per VM (the console).
 * - `-cpu` only when `cpu` is set (`host` becomes `max` under TCG); QEMU's default CPU otherwise.
 */
export interface DriveSource {
  /** Host path of the volume (or absolute path). */
  path: string;
  format: string;
}

export interface HostForward {
  hostPort: number;
  guestAddress: string;
  guestPort: number;
}

/** How a NIC is wired in the lab: a user-mode network with loopback forwards. */
export interface UserNetwork {
  /** e.g. 192.0.2.0/24 */
  net: string;
  /** QEMU's own address on it (the guests' gateway, and the source of forwarded connections). */
  host: string;
  forwards: HostForward[];
}

export interface FirmwareFiles {
  code: string;
  varsTemplate: string;
}

export interface QemuCommandInput {
  vmid: number;
  config: Record<string, string>;
  accel: 'tcg' | 'kvm';
  /** Resolves a drive's `file` (volume id or absolute path). */
  resolveDrive(file: string): DriveSource;
  paths: {
    qmp: string;
    qga: string;
    pidFile: string;
    serialLog: string;
    /** The VNC server's unix socket (PVE: /var/run/qemu-server/<vmid>.vnc), reached through vncproxy. */
    vnc: string;
    /** Used for OVMF without an efidisk (PVE: /run/qemu-server/efidisk/<vmid>-ovmf.fd). */
    temporaryEfivars: string;
  };
  /** By `netN`; a NIC without an entry gets the default user network without forwards. */
  networks: Record<string, UserNetwork>;
  /** Debian's OVMF images; defaults to ovmfFiles(). */
  ovmf?: (efidisk: Record<string, string> | undefined) => FirmwareFiles;
  /** The size of the vars template (PVE passes `size=` for raw vars). */
  ovmfVarsSize?: number;
  /** The host's physical address bits (the memory hotplug's maximum). */
  hostBits?: number;
}

export interface QemuCommand {
  argv: string[];
  /** Lines PVE's start task prints with `WARN:` (each counts towards `WARNINGS: N`). */
  warnings: string[];
}

export const QEMU_BINARY = 'qemu-system-x86_64';
const OVMF_DIR = '/usr/share/OVMF';
export const DEFAULT_USER_NETWORK = { net: '192.0.2.0/24', host: '192.0.2.254' } as const;

const DRIVE_KEY = /^(ide|sata|scsi|virtio)(\d+)$/;
const MAX_SATA_DISKS = 6;
const NET_PCI_SLOT = 0x12; // qemu-server's PCI.pm: net0 at 0x12 … net5 at 0x17 on pci.0

/** PVE's boolean words (parse_boolean): 1/on/yes/true and 0/off/no/false. */
export function isTrue(value: string | undefined): boolean {
  return value !== undefined && /^(1|on|yes|true)$/i.test(value);
}

/** `agent: 1` / `enabled=1,…` → the parsed agent settings, or undefined when disabled (parse_guest_agent). */
export function guestAgentSettings(value: string | undefined): { enabled: true; type: 'virtio' | 'isa' } | undefined {
  if (value === undefined) return undefined;
  let parsed: Record<string, string>;
  try {
    parsed = parsePropertyString(value, 'enabled');
  } catch {
    return undefined;
  }
  if (!isTrue(parsed.enabled)) return undefined;
  return { enabled: true, type: parsed.type === 'isa' ? 'isa' : 'virtio' };
}

export const isQ35 = (config: Record<string, string>) =>
  /q35/.test(parsePropertyString(config.machine ?? '', 'type').type ?? '');

/** qemu-server's OVMF.pm choice of images (Debian paths; 4m → the 4 MiB pair, pre-enrolled keys → MS vars). */
export function ovmfFiles(efidisk: Record<string, string> | undefined): FirmwareFiles {
  if (efidisk?.efitype === '4m') {
    return {
      code: `${OVMF_DIR}/OVMF_CODE_4M.fd`,
      varsTemplate: `${OVMF_DIR}/${isTrue(efidisk['pre-enrolled-keys']) ? 'OVMF_VARS_4M.ms.fd' : 'OVMF_VARS_4M.fd'}`,
    };
  }
  return { code: `${OVMF_DIR}/OVMF_CODE.fd`, varsTemplate: `${OVMF_DIR}/OVMF_VARS.fd` };
}

/** `boot: order=scsi0;net0` → bootindex per device from 100 (device_bootorder); legacy `bootdisk` → 100. */
export function bootOrder(config: Record<string, string>): Record<string, number> {
  const boot = config.boot === undefined ? {} : parsePropertyString(config.boot, 'legacy');
  const order: Record<string, number> = {};
  if (boot.order !== undefined) {
    boot.order
      .split(/[;,\s]+/)
      .filter(Boolean)
      .forEach((dev, i) => (order[dev] = 100 + i));
  } else if (config.bootdisk) {
    order[config.bootdisk] = 100;
  }
  return order;
}

/** The drives in qemu-server's foreach_volume order (ide, scsi, virtio, sata; by index). */
export function driveKeys(config: Record<string, string>): string[] {
  const rank = (k: string) =>
    ['ide', 'scsi', 'virtio', 'sata'].indexOf(DRIVE_KEY.exec(k)![1]!) * 100 + Number(DRIVE_KEY.exec(k)![2]);
  return Object.keys(config)
    .filter((k) => DRIVE_KEY.test(k))
    .sort((a, b) => rank(a) - rank(b));
}

export const isCdrom = (drive: Record<string, string>) => drive.media === 'cdrom' || drive.file === 'cdrom';

function scsihwInfo(scsihw: string | undefined, index: number): { maxdev: number; controller: number; prefix: string } {
  const maxdev = !scsihw || scsihw.startsWith('lsi') ? 7 : scsihw === 'virtio-scsi-single' ? 1 : 256;
  return {
    maxdev,
    controller: Math.floor(index / maxdev),
    prefix: scsihw === 'virtio-scsi-single' ? 'virtioscsi' : 'scsihw',
  };
}

/** print_cpu_device: the vCPU device for CPU number `id` (1-based) of a VM whose CPU model is `model`. */
export function cpuDevice(model: string, config: Record<string, string>, id: number): string {
  const cores = Number(config.cores ?? 1) || 1;
  const core = (id - 1) % cores;
  const socket = Math.floor((id - 1 - core) / cores);
  return `${model}-x86_64-cpu,id=cpu${id},socket-id=${socket},core-id=${core},thread-id=0`;
}

/** `-smp`; with CPU hotplug one vCPU at start and the others as `-device`s (hot-unpluggable later). */
function smpArgs(config: Record<string, string>, cpuHotplug: boolean, model: string): string[] {
  const sockets = Number(config.sockets ?? config.smp ?? 1) || 1;
  const cores = Number(config.cores ?? 1) || 1;
  const maxcpus = sockets * cores;
  const vcpus = config.vcpus ? Number(config.vcpus) : maxcpus;
  if (!cpuHotplug) return ['-smp', `${vcpus},sockets=${sockets},cores=${cores},maxcpus=${maxcpus}`];
  const argv = ['-smp', `1,sockets=${sockets},cores=${cores},maxcpus=${maxcpus}`];
  for (let i = 2; i <= vcpus; i++) argv.push('-device', cpuDevice(model, config, i));
  return argv;
}

/** The QEMU CPU model the VM runs (`host` is `max` under TCG; QEMU's default qemu64 without `cpu`). */
export function cpuModel(config: Record<string, string>, accel: 'tcg' | 'kvm'): string {
  if (!config.cpu) return 'qemu64';
  const cputype = parsePropertyString(config.cpu, 'cputype').cputype ?? 'kvm64';
  return cputype === 'host' && accel === 'tcg' ? 'max' : cputype;
}

/** The SCSI controller a `scsiN` drive sits on (print_pci_addr aside): its id, `-device` and iothread object. */
export function scsiController(
  config: Record<string, string>,
  key: string,
  drive: Record<string, string>,
): { id: string; device: string; iothread?: string } | undefined {
  const m = DRIVE_KEY.exec(key);
  if (!m || m[1] !== 'scsi') return undefined;
  const scsihw = config.scsihw ?? 'lsi';
  const { controller, prefix } = scsihwInfo(config.scsihw, Number(m[2]));
  const id = `${prefix}${controller}`;
  const type = scsihw.startsWith('virtio-scsi-single') ? 'virtio-scsi-pci' : scsihw;
  if (config.scsihw === 'virtio-scsi-single' && isTrue(drive.iothread))
    return { id, device: `${type},id=${id},iothread=iothread-${id}`, iothread: `iothread,id=iothread-${id}` };
  return { id, device: `${type},id=${id}` };
}

/** `-drive` of a drive (print_drive_commandline_full); `drive` gets the volume's format when it has none. */
export function driveCommandLine(
  key: string,
  drive: Record<string, string>,
  resolveDrive: (file: string) => DriveSource,
): string {
  const cdrom = isCdrom(drive);
  let driveArg = '';
  const file = drive.file ?? 'none';
  if (file !== 'none' && file !== 'cdrom') {
    const source = resolveDrive(file);
    driveArg = `file=${source.path},`;
    drive.format ??= source.format;
  }
  driveArg += `if=none,id=drive-${key}`;
  for (const o of ['media', 'rerror', 'werror', 'discard']) if (drive[o] !== undefined) driveArg += `,${o}=${drive[o]}`;
  if (cdrom && drive.media === undefined) driveArg += ',media=cdrom';
  if (drive.format && driveArg.startsWith('file=')) driveArg += `,format=${drive.format}`;
  if (!cdrom) driveArg += `,cache=${drive.cache ?? 'writeback'}`;
  if (!cdrom) driveArg += `,detect-zeroes=${drive.discard === 'on' ? 'unmap' : 'on'}`;
  return driveArg;
}

/** `-device` of a drive (print_drivedevice_full). */
export function driveDevice(
  config: Record<string, string>,
  key: string,
  drive: Record<string, string>,
  bootindex?: number,
): string {
  const [, iface, indexText] = DRIVE_KEY.exec(key)!;
  const index = Number(indexText);
  const cdrom = isCdrom(drive);
  let device: string;
  if (iface === 'virtio') {
    device = `virtio-blk-pci,drive=drive-${key},id=${key}`;
    if (isTrue(drive.iothread)) device += `,iothread=iothread-${key}`;
  } else if (iface === 'scsi') {
    const { maxdev, controller, prefix } = scsihwInfo(config.scsihw, index);
    const type = cdrom ? 'cd' : 'hd';
    device =
      !config.scsihw || config.scsihw.startsWith('lsi') || config.scsihw === 'pvscsi'
        ? `scsi-${type},bus=${prefix}${controller}.0,scsi-id=${index % maxdev}`
        : `scsi-${type},bus=${prefix}${controller}.0,channel=0,scsi-id=0,lun=${index}`;
    device += `,drive=drive-${key},id=${key}`;
    if (isTrue(drive.ssd)) device += ',rotation_rate=1';
  } else {
    const maxdev = iface === 'sata' ? MAX_SATA_DISKS : 2;
    let controller = Math.floor(index / maxdev);
    let unit = index % maxdev;
    if (isQ35(config) && iface === 'ide') {
      controller += 2 * (unit % 2);
      unit = 0;
    }
    const bus = iface === 'ide' ? `bus=ide.${controller},unit=${unit}` : `bus=ahci${controller}.${unit}`;
    device = `ide-${cdrom ? 'cd' : 'hd'},${bus},drive=drive-${key},id=${key}`;
    if (!cdrom && isTrue(drive.ssd)) device += ',rotation_rate=1';
  }
  if (bootindex !== undefined) device += `,bootindex=${bootindex}`;
  if (drive.serial) device += `,serial=${drive.serial.replace(/,/g, ',,')}`;
  return device;
}

/** A NIC's `-netdev`: the lab's user network with its loopback forwards. */
export function nicNetdev(key: string, network: UserNetwork): string {
  const netdev = [`user,id=${key}`, 'restrict=on', `net=${network.net}`, `host=${network.host}`];
  for (const f of network.forwards) netdev.push(`hostfwd=tcp:127.0.0.1:${f.hostPort}-${f.guestAddress}:${f.guestPort}`);
  return netdev.join(',');
}

/** A NIC's `-device` (print_netdevice_full): its model, MAC and, on i440fx, PVE's PCI slot for net0–net5. */
export function nicDevice(config: Record<string, string>, key: string, bootindex?: number): string {
  const nic = parseNic(config[key]!);
  const i = Number(key.slice(3));
  const model = nic.model === 'virtio' ? 'virtio-net-pci' : nic.model;
  let device = `${model},mac=${nic.macaddr},netdev=${key}`;
  if (!isQ35(config) && i < 6) device += `,bus=pci.0,addr=0x${(NET_PCI_SLOT + i).toString(16)}`;
  device += `,id=${key}`;
  if (bootindex !== undefined) device += `,bootindex=${bootindex}`;
  return device;
}

/** The command line for a VM (see the module comment for what is PVE's and what is the lab's). */
export function qemuCommandLine(input: QemuCommandInput): QemuCommand {
  const { config, vmid, paths } = input;
  const warnings: string[] = [];
  const q35 = isQ35(config);
  const argv: string[] = [];
  const devices: string[] = [];
  const bootindex = bootOrder(config);

  argv.push('-name', `${config.name || `vm${vmid}`},debug-threads=on`, '-no-user-config');
  argv.push('-chardev', `socket,id=qmp,path=${paths.qmp},server=on,wait=off`, '-mon', 'chardev=qmp,mode=control');
  argv.push('-pidfile', paths.pidFile);

  if (config.smbios1) {
    const smbios = parsePropertyString(config.smbios1);
    const base64 = isTrue(smbios.base64);
    delete smbios.base64;
    let text = 'type=1';
    for (const key of Object.keys(smbios).sort()) {
      let value = smbios[key]!;
      if (base64 && key !== 'uuid') value = Buffer.from(value, 'base64').toString();
      if (value) text += `,${key}=${value.replace(/,/g, ',,')}`;
    }
    argv.push('-smbios', text);
  }

  if (config.bios === 'ovmf') {
    const efidisk = config.efidisk0 ? parsePropertyString(config.efidisk0, 'file') : undefined;
    const firmware = (input.ovmf ?? ovmfFiles)(efidisk);
    let vars = 'if=pflash,unit=1,id=drive-efidisk0';
    if (efidisk) {
      const source = input.resolveDrive(efidisk.file!);
      const format = efidisk.format ?? source.format;
      vars += `,format=${format},file=${source.path}`;
      if (format === 'raw' && input.ovmfVarsSize) vars += `,size=${input.ovmfVarsSize}`;
    } else {
      warnings.push('no efidisk configured! Using temporary efivars disk.');
      vars += `,format=raw,file=${paths.temporaryEfivars}`;
      if (input.ovmfVarsSize) vars += `,size=${input.ovmfVarsSize}`;
    }
    argv.push('-drive', `if=pflash,unit=0,format=raw,readonly=on,file=${firmware.code}`, '-drive', vars);
  }

  if (config.vmgenid && config.vmgenid !== '0') devices.push('-device', `vmgenid,guid=${config.vmgenid}`);

  const hotplug = parseHotplugFeatures(config.hotplug);
  argv.push(...smpArgs(config, hotplug.cpu, cpuModel(config, input.accel)), '-nodefaults');
  argv.push('-boot', 'menu=on,strict=on,reboot-timeout=1000');
  if (config.reboot !== undefined && !isTrue(config.reboot)) argv.push('-no-reboot');
  argv.push('-vga', 'none', '-display', 'none');
  // VNC on a unix socket with a password, as qemu-server's config_to_command: `qm vncproxy` sets a
  // one-time password over QMP and relays the socket. No VGA device is added (the guests here speak on
  // their serial console), so a client gets the RFB handshake and an empty screen.
  argv.push('-vnc', `unix:${paths.vnc},password=on`);
  // The console: serial port 0 into the VM's log file (PVE wires serialN only when configured).
  argv.push('-chardev', `file,id=serial0,path=${paths.serialLog}`, '-serial', 'chardev:serial0');

  if (config.cpu) argv.push('-cpu', cpuModel(config, input.accel));
  argv.push(...memoryCommandLine(config, hotplug.memory, input.hostBits));

  const agent = guestAgentSettings(config.agent);
  if (agent) {
    devices.push('-chardev', `socket,path=${paths.qga},server=on,wait=off,id=qga0`);
    if (agent.type === 'virtio')
      devices.push(
        '-device',
        'virtio-serial,id=qga0',
        '-device',
        'virtserialport,chardev=qga0,name=org.qemu.guest_agent.0',
      );
    else devices.push('-device', 'isa-serial,chardev=qga0');
  }

  if (config.balloon === undefined || config.balloon !== '0')
    devices.push('-device', 'virtio-balloon-pci,id=balloon0,free-page-reporting=on');

  const scsiControllers = new Set<string>();
  const ahciControllers = new Set<number>();
  for (const key of driveKeys(config)) {
    const [, iface, indexText] = DRIVE_KEY.exec(key)!;
    const index = Number(indexText);
    const drive = parsePropertyString(config[key]!, 'file');
    const controller = scsiController(config, key, drive);
    if (controller && !scsiControllers.has(controller.id)) {
      if (controller.iothread) argv.push('-object', controller.iothread);
      devices.push('-device', controller.device);
      scsiControllers.add(controller.id);
    } else if (iface === 'sata') {
      const ahci = Math.floor(index / MAX_SATA_DISKS);
      if (!ahciControllers.has(ahci)) {
        devices.push('-device', `ahci,id=ahci${ahci},multifunction=on`);
        ahciControllers.add(ahci);
      }
    } else if (iface === 'virtio' && isTrue(drive.iothread)) {
      argv.push('-object', `iothread,id=iothread-${key}`);
    }
    devices.push('-drive', driveCommandLine(key, drive, input.resolveDrive));
    devices.push('-device', driveDevice(config, key, drive, bootindex[key]));
  }

  for (let i = 0; i < 32; i++) {
    const key = `net${i}`;
    if (!config[key]) continue;
    const network = input.networks[key] ?? { ...DEFAULT_USER_NETWORK, forwards: [] };
    devices.push('-netdev', nicNetdev(key, network));
    devices.push('-device', nicDevice(config, key, bootindex[key]));
  }

  const machine = `type=${q35 ? 'q35' : 'pc'}`;
  // Under TCG every vCPU runs in turn on one host thread (thread=single): twice in about ten suite runs
  // a 2-vCPU guest stopped for good early in its boot under multi-threaded TCG on the loaded 2-core
  // machine (lab-web1 right after systemd started, mig-app02 before its agent); no 1-vCPU guest ever did.
  if (input.accel === 'tcg') argv.push(...devices, '-machine', machine, '-accel', 'tcg,thread=single');
  else argv.push(...devices, '-machine', `${machine},accel=kvm`);
  if (config.args) argv.push(...config.args.trim().split(/\s+/));
  return { argv, warnings };
}

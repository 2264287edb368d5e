import { parsePropertyString } from '../../../src/proxmox/property-string';
import { parseNic } from '../../../src/proxmox/nics';
import { qmpCommand, QmpError } from '../../qemu/qmp';
import type { Cluster, SimVm } from '../cluster';
import { qmpFailure, simulatedDevices, type LiveDevices } from '../live-devices';
import { THROTTLE_OPTIONS } from '../hotplug-disk';
import {
  cpuDevice,
  cpuModel,
  DEFAULT_USER_NETWORK,
  driveCommandLine,
  driveDevice,
  nicDevice,
  nicNetdev,
  scsiController,
} from './command-line';
import { planNetworks } from './guest-network';
import { segmentOf } from './nic-wiring';
import { qemuRuntime, type QemuInstance, type QemuRuntime } from './runtime';

/**
 * The LiveDevices of a real guest: qemu-server's monitor commands sent to its QEMU over QMP (HMP through
 * human-monitor-command where qemu-server uses it: drive_add, drive_del, netdev_add), with its waits
 * (qemu_deviceaddverify and qemu_devicedelverify: up to 5 s, 15 for a SCSI controller) and its errors
 * (`VM <vmid> qmp command '<cmd>' failed - <QEMU's reason>`). The lab's networking follows a NIC's
 * tap moves and link state (nic-wiring.ts).
 */
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const MiB = 1024 * 1024;

/** mon_cmd and the checks qemu-server builds on it, for one VM's QEMU. */
interface Monitor {
  qmp(command: string, args?: Record<string, unknown>, timeoutMs?: number): Promise<unknown>;
  /** An HMP command (human-monitor-command); resolves with its output. */
  hmp(line: string): Promise<string>;
  /** vm_devices_list: the ids under /machine/peripheral. */
  has(id: string): Promise<boolean>;
  /** qemu_deviceaddverify / qemu_devicedelverify. */
  verify(id: string, present: boolean, seconds?: number): Promise<void>;
  /** qemu_deviceadd (through HMP, as the device strings are the command line's). */
  deviceAdd(device: string): Promise<void>;
}

function monitorOf(vm: SimVm, instance: QemuInstance): Monitor {
  const qmp = async (command: string, args?: Record<string, unknown>, timeoutMs = 30_000) => {
    try {
      return await qmpCommand(instance.qmp, command, args, { timeoutMs });
    } catch (err) {
      throw new Error(qmpFailure(vm.vmid, command, err instanceof QmpError ? err.message : String(err)).trimEnd());
    }
  };
  const hmp = async (line: string) => String(await qmp('human-monitor-command', { 'command-line': line })).trim();
  const has = async (id: string) =>
    ((await qmp('qom-list', { path: '/machine/peripheral' })) as Array<{ name: string }>).some((p) => p.name === id);
  return {
    qmp,
    hmp,
    has,
    async verify(id, present, seconds = 5) {
      for (let i = 0; i <= seconds; i++) {
        if ((await has(id)) === present) return;
        await sleep(1000);
      }
      throw new Error(present ? `error on hotplug device '${id}'` : `error on hot-unplugging device '${id}'`);
    },
    async deviceAdd(device) {
      const answer = await hmp(`device_add ${device}`);
      if (answer) throw new Error(qmpFailure(vm.vmid, 'device_add', answer).trimEnd());
    },
  };
}

export function qemuDevices(cluster: Cluster, runtime: QemuRuntime, vm: SimVm, instance: QemuInstance): LiveDevices {
  const monitor = monitorOf(vm, instance);
  return {
    real: true,
    has: monitor.has,
    ...cpuAndMemory(monitor, instance),
    ...nics(monitor, runtime, vm, instance),
    ...disks(monitor, cluster, vm),
    balloon: async (bytes) => void (await monitor.qmp('balloon', { value: bytes })),
  };
}

type CpuAndMemory = Pick<
  LiveDevices,
  'cpuCount' | 'addCpu' | 'removeCpu' | 'dimms' | 'addDimm' | 'removeDimm' | 'removeMemoryBackend'
>;

/** vCPUs (query-cpus-fast, device_add/del) and DIMMs (query-memory-devices, object-add + device_add). */
function cpuAndMemory(monitor: Monitor, instance: QemuInstance): CpuAndMemory {
  return {
    cpuCount: async () => ((await monitor.qmp('query-cpus-fast')) as unknown[]).length,
    addCpu: (index, config) => monitor.deviceAdd(cpuDevice(cpuModel(config, instance.accel), config, index)),
    removeCpu: async (index) => void (await monitor.qmp('device_del', { id: `cpu${index}` })),
    dimms: async () =>
      ((await monitor.qmp('query-memory-devices')) as Array<{ data: { id?: string; size: number } }>)
        .filter((d) => /^dimm\d+$/.test(d.data.id ?? ''))
        .map((d) => ({ name: d.data.id!, sizeMiB: d.data.size / MiB })),
    addDimm: async (dimm) => {
      const backend = `mem-${dimm.name}`;
      await monitor.qmp('object-add', { 'qom-type': 'memory-backend-ram', id: backend, size: dimm.sizeMiB * MiB });
      try {
        await monitor.qmp('device_add', { driver: 'pc-dimm', id: dimm.name, memdev: backend, node: dimm.node });
      } catch (err) {
        await monitor.qmp('object-del', { id: backend }).catch(() => undefined);
        throw err;
      }
    },
    removeDimm: async (name) => void (await monitor.qmp('device_del', { id: name })),
    removeMemoryBackend: async (name) => void (await monitor.qmp('object-del', { id: `mem-${name}` })),
  };
}

type Nics = Pick<LiveDevices, 'setLink' | 'moveTap' | 'unplugNic' | 'plugNic'>;

/** NICs: set_link, the tap's bridge/VLAN (the lab's wiring), netdev_add/device_add and their removal. */
function nics(monitor: Monitor, runtime: QemuRuntime, vm: SimVm, instance: QemuInstance): Nics {
  const rewire = () => runtime.rewire(vm.vmid);
  return {
    setLink: async (nic, up) => {
      await monitor.qmp('set_link', { name: nic, up });
      const wiring = instance.wiring.get(nic);
      if (wiring) wiring.linkUp = up;
      await rewire();
    },
    moveTap: async (nic, value) => {
      const wiring = instance.wiring.get(nic);
      if (wiring) wiring.segment = segmentOf(value);
      await rewire();
    },
    unplugNic: async (nic) => {
      await monitor.qmp('device_del', { id: nic });
      await monitor.verify(nic, false);
      await monitor.qmp('netdev_del', { id: nic });
      instance.forwards = instance.forwards.filter((f) => f.nic !== nic);
      instance.wiring.delete(nic);
    },
    plugNic: async (nic, value, config) => {
      const hint = runtime.hintsByMac.get(parseNic(value).macaddr.toLowerCase());
      const segment = segmentOf(value);
      const linkUp = parseNic(value).options.link_down !== '1';
      const planned = await planNetworks({ [nic]: value }, hint ? { [nic]: hint } : {}, (_n, address) =>
        linkUp ? runtime.subnets.reaches(address, segment) : false,
      );
      const network = planned.networks[nic] ?? { ...DEFAULT_USER_NETWORK, forwards: [] };
      const answer = await monitor.hmp(`netdev_add ${nicNetdev(nic, network)}`);
      if (answer) throw new Error(qmpFailure(vm.vmid, 'netdev_add', answer).trimEnd());
      try {
        await monitor.deviceAdd(nicDevice({ ...config, [nic]: value }, nic));
        await monitor.verify(nic, true);
        await monitor.qmp('set_link', { name: nic, up: linkUp });
      } catch (err) {
        await monitor.qmp('netdev_del', { id: nic }).catch(() => undefined);
        throw err;
      }
      instance.forwards.push(...planned.forwards);
      instance.wiring.set(nic, { segment, linkUp });
    },
  };
}

type Disks = Pick<LiveDevices, 'unplugDisk' | 'plugDisk' | 'changeMedium' | 'ioThrottle' | 'blockResize'>;

/** Drives: drive_add/device_add (the SCSI controller first), device_del/drive_del, media, limits, size. */
function disks(monitor: Monitor, cluster: Cluster, vm: SimVm): Disks {
  const resolve = (file: string) => {
    if (file.startsWith('/')) return { path: file, format: 'raw' };
    const volume = cluster.storages.resolve(file, vm.node);
    return { path: volume.file, format: volume.format === 'iso' ? 'raw' : volume.format };
  };
  return {
    unplugDisk: async (key, config) => {
      await monitor.qmp('device_del', { id: key });
      await monitor.verify(key, false);
      const answer = await monitor.hmp(`drive_del drive-${key}`);
      if (answer && !/Device '.*?' not found/.test(answer)) throw new Error(`deleting drive ${key} failed : ${answer}`);
      const controller = scsiController(config, key, parsePropertyString(config[key]!, 'file'));
      if (controller && config.scsihw === 'virtio-scsi-single' && (await monitor.has(controller.id))) {
        await monitor.qmp('device_del', { id: controller.id });
        await monitor.verify(controller.id, false, 15);
      }
    },
    plugDisk: async (key, value, config) => {
      const drive = parsePropertyString(value, 'file');
      const next = { ...config, [key]: value };
      const controller = scsiController(next, key, drive);
      if (controller && !(await monitor.has(controller.id))) {
        if (controller.iothread)
          await monitor.qmp('object-add', { 'qom-type': 'iothread', id: `iothread-${controller.id}` });
        await monitor.deviceAdd(controller.device);
        await monitor.verify(controller.id, true);
      }
      const added = await monitor.hmp(`drive_add auto "${driveCommandLine(key, drive, resolve)}"`);
      if (!/OK/.test(added)) throw new Error(`adding drive failed: ${added}`);
      try {
        await monitor.deviceAdd(driveDevice(next, key, drive));
        if (/^virtio\d+$/.test(key)) await monitor.verify(key, true);
      } catch (err) {
        await monitor.hmp(`drive_del drive-${key}`).catch(() => undefined);
        throw err;
      }
    },
    changeMedium: async (key, value) => {
      const drive = parsePropertyString(value, 'file');
      if (drive.file === 'none' || drive.file === 'cdrom') await monitor.qmp('eject', { id: key, force: true });
      else {
        const source = resolve(drive.file!);
        await monitor.qmp('blockdev-change-medium', { id: key, filename: source.path, format: source.format });
      }
    },
    ioThrottle: async (key, drive) => {
      const limits: Record<string, unknown> = { device: `drive-${key}` };
      for (const option of THROTTLE_OPTIONS)
        limits[option.replace(/^mbps/, 'bps')] = Math.round(
          (Number(drive[option]) || 0) * (option.startsWith('mbps') ? MiB : 1),
        );
      for (const length of ['bps', 'bps_rd', 'bps_wr', 'iops', 'iops_rd', 'iops_wr'])
        limits[`${length}_max_length`] = Number(drive[`${length}_max_length`]) || 1;
      await monitor.qmp('block_set_io_throttle', limits);
    },
    blockResize: async (key, bytes) => {
      const padded = bytes + ((1024 - (bytes % 1024)) % 1024);
      await monitor.qmp('block_resize', { device: `drive-${key}`, size: padded }, 60_000);
    },
  };
}

/** The devices of a running VM: its real QEMU's, or those its config implies when it runs none. */
export function liveDevicesOf(cluster: Cluster, vm: SimVm): LiveDevices {
  const runtime = qemuRuntime(cluster);
  const instance = runtime?.get(vm.vmid);
  return runtime && instance ? qemuDevices(cluster, runtime, vm, instance) : simulatedDevices(vm);
}

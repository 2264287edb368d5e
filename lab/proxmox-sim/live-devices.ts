import type { SimVm } from './cluster';
import { currentMemoryMiB, dimmsUpTo, type Dimm } from './qemu/memory';

/**
 * What qemu-server asks of a running VM's QEMU while it hotplugs (vm_devices_list, device_add/del,
 * query-cpus-fast, query-memory-devices, set_link, block_resize, the tap device's bridge…). The real
 * guests' QEMU answers for real (qemu/live-qemu.ts); a VM the simulator only marks running answers
 * from its config, as if its QEMU held exactly what the config says.
 */
export interface LiveDevices {
  /** A real QEMU (false: a VM the simulator only marks running). */
  readonly real: boolean;
  /** vm_devices_list: whether QEMU has a device with this id (`net0`, `scsi1`, `cpu2`, `dimm0`…). */
  has(id: string): Promise<boolean>;
  /** query-cpus-fast: how many vCPUs run. */
  cpuCount(): Promise<number>;
  /** device_add of print_cpu_device's `<model>-x86_64-cpu,id=cpu<n>,socket-id=…,core-id=…,thread-id=0`. */
  addCpu(index: number, config: Record<string, string>): Promise<void>;
  /** device_del `cpu<n>` (the guest ejects it). */
  removeCpu(index: number): Promise<void>;
  /** query-memory-devices' DIMMs. */
  dimms(): Promise<Array<{ name: string; sizeMiB: number }>>;
  /** object-add of `mem-<name>` (memory-backend-ram), then device_add pc-dimm. */
  addDimm(dimm: Dimm): Promise<void>;
  /** device_del of a DIMM (the guest must give it up). */
  removeDimm(name: string): Promise<void>;
  /** object-del `mem-<name>` once its DIMM is gone. */
  removeMemoryBackend(name: string): Promise<void>;
  /** QMP balloon (bytes). */
  balloon(bytes: number): Promise<void>;
  /** QMP set_link on the NIC. */
  setLink(nic: string, up: boolean): Promise<void>;
  /** tap_unplug + tap_plug: the NIC's tap leaves its bridge/VLAN and joins the one `value` names. */
  moveTap(nic: string, value: string): Promise<void>;
  /** device_del + netdev_del of a NIC. */
  unplugNic(nic: string): Promise<void>;
  /** netdev_add + device_add of a NIC, then set_link as `link_down` says. */
  plugNic(nic: string, value: string, config: Record<string, string>): Promise<void>;
  /** device_del + drive_del of a disk (and its virtio-scsi-single controller). */
  unplugDisk(key: string, config: Record<string, string>): Promise<void>;
  /** drive_add + device_add of a disk (its controller first). */
  plugDisk(key: string, value: string, config: Record<string, string>): Promise<void>;
  /** A CD-ROM's medium changed (`none`: ejected). */
  changeMedium(key: string, value: string): Promise<void>;
  /** QMP block_set_io_throttle with the drive's limits (mbps*, iops* and their bursts). */
  ioThrottle(key: string, drive: Record<string, string>): Promise<void>;
  /** QMP block_resize of the drive to `bytes` (rounded up to KiB, as qemu-server pads it). */
  blockResize(key: string, bytes: number): Promise<void>;
}

/** The QMP error text mon_cmd dies with. */
export const qmpFailure = (vmid: number, command: string, why: string) =>
  `VM ${vmid} qmp command '${command}' failed - ${why}\n`;

/**
 * A VM without a real QEMU: its devices are what its config says (the vCPUs and DIMMs counted from it
 * when the hotplug starts), and every action succeeds.
 */
export function simulatedDevices(vm: SimVm): LiveDevices {
  const maxcpus = (Number(vm.config.sockets ?? vm.config.smp ?? 1) || 1) * (Number(vm.config.cores ?? 1) || 1);
  let cpus = Number(vm.config.vcpus) || maxcpus;
  const memory = currentMemoryMiB(vm.config.memory);
  const dimms = dimmsUpTo(vm.config, memory)
    .filter((d) => memory > 1024 && d.totalMiB <= memory)
    .map(({ name, sizeMiB }) => ({ name, sizeMiB }));
  const ok = () => Promise.resolve();
  return {
    real: false,
    has: (id) => {
      const cpu = /^cpu(\d+)$/.exec(id);
      if (cpu) return Promise.resolve(Number(cpu[1]) <= cpus);
      if (/^dimm\d+$/.test(id)) return Promise.resolve(dimms.some((d) => d.name === id));
      return Promise.resolve(vm.config[id] !== undefined);
    },
    cpuCount: () => Promise.resolve(cpus),
    addCpu: () => Promise.resolve(void cpus++),
    removeCpu: () => Promise.resolve(void cpus--),
    dimms: () => Promise.resolve([...dimms]),
    addDimm: (dimm) => Promise.resolve(void dimms.push({ name: dimm.name, sizeMiB: dimm.sizeMiB })),
    removeDimm: (name) =>
      Promise.resolve(
        void dimms.splice(
          dimms.findIndex((d) => d.name === name),
          1,
        ),
      ),
    removeMemoryBackend: ok,
    balloon: ok,
    setLink: ok,
    moveTap: ok,
    unplugNic: ok,
    plugNic: ok,
    unplugDisk: ok,
    plugDisk: ok,
    changeMedium: ok,
    ioThrottle: ok,
    blockResize: ok,
  };
}

import { parsePropertyString } from '../../../src/proxmox/property-string';

/**
 * A VM's memory as qemu-server's PVE/QemuServer/Memory.pm lays it out and changes it: pure rules, no QEMU.
 *
 * - With memory hotplug (`hotplug` has `memory`) QEMU starts with 1024 MiB of static memory
 *   (`-m size=1024,slots=255,maxmem=<max>M`), split over the NUMA nodes (one per socket), and the rest
 *   as DIMMs (`pc-dimm` on a `memory-backend-ram` each): 32 of 512 MiB, then 32 of 1 GiB, … (foreach_dimm),
 *   spread over the nodes in turn. NUMA must be on; the memory must be at least the static part and end
 *   on a DIMM boundary.
 * - Without it, `-m <memory>`, and with `numa: 1` the memory is split over the sockets' nodes.
 * - A running VM's memory grows by DIMMs (the value is rounded up to the next DIMM boundary) and shrinks
 *   by unplugging the newest DIMMs until it is at or below the wanted value (qemu_memory_hotplug).
 *
 * The maximum (get_max_mem) comes from the host's physical address bits, at most 40 unless the CPU type
 * is `host`/`max` or `phys-bits` says otherwise: 2^(bits-21) MiB, at most 4 TiB.
 */
export const STATIC_MEMORY_MIB = 1024;
const MAX_NUMA = 8;
const DEFAULT_MEMORY_MIB = 512;

/** parse_memory / get_current_memory: `memory` is `[current=]N`, 512 when unset. */
export function currentMemoryMiB(value: string | undefined): number {
  if (value === undefined) return DEFAULT_MEMORY_MIB;
  return Number(parsePropertyString(value, 'current').current ?? DEFAULT_MEMORY_MIB);
}

/** One DIMM as foreach_dimm walks them: its id, size, NUMA node and the memory once it is plugged. */
export interface Dimm {
  name: string;
  sizeMiB: number;
  node: number;
  totalMiB: number;
}

/** get_numa_node_list: the `numaN` entries' ids, else one node per socket. */
export function numaNodes(config: Record<string, string>): number[] {
  const custom = Array.from({ length: MAX_NUMA }, (_, i) => i).filter((i) => config[`numa${i}`] !== undefined);
  if (custom.length > 0) return custom;
  return Array.from({ length: Number(config.sockets ?? 1) || 1 }, (_, i) => i);
}

/** foreach_dimm: the DIMMs from `staticMiB` until `memoryMiB` is reached (the last may pass it). */
export function dimmsUpTo(config: Record<string, string>, memoryMiB: number, staticMiB = STATIC_MEMORY_MIB): Dimm[] {
  const dimms: Dimm[] = [];
  if (memoryMiB === staticMiB) return dimms;
  const nodes = numaNodes(config);
  let size = config.hugepages === '1024' ? 1024 : 512;
  let total = staticMiB;
  let id = 0;
  for (let group = 0; group < 8; group++) {
    for (let i = 0; i < 32; i++) {
      total += size;
      dimms.push({ name: `dimm${id}`, sizeMiB: size, node: nodes[i % nodes.length]!, totalMiB: total });
      id++;
      if (total >= memoryMiB) return dimms;
    }
    size *= 2;
  }
  return dimms;
}

/** get_max_mem, for a host with `hostBits` physical address bits (/proc/cpuinfo; 36 when unknown). */
export function maxMemoryMiB(config: Record<string, string>, hostBits: number | undefined): number {
  const cpu = config.cpu ? parsePropertyString(config.cpu, 'cputype') : {};
  let bits: number | undefined;
  const physBits = cpu['phys-bits'];
  if (physBits === 'host') bits = hostBits;
  else if (physBits !== undefined && /^\d+$/.test(physBits)) bits = Number(physBits);
  if (bits === undefined) {
    const host = hostBits ?? 36;
    bits = cpu.cputype && /^(host|max)$/.test(cpu.cputype) ? host : Math.min(host, 40);
  }
  bits &= ~1;
  return Math.min(2 ** (bits - 21), 4 * 1024 * 1024);
}

/** The memory part of a start (Memory.pm's config): argv, or the error qemu-server dies with. */
export function memoryCommandLine(
  config: Record<string, string>,
  hotplugMemory: boolean,
  hostBits: number | undefined,
): string[] {
  const memory = currentMemoryMiB(config.memory);
  const sockets = Number(config.sockets ?? 1) || 1;
  const cores = Number(config.cores ?? 1) || 1;
  const argv: string[] = [];
  let staticMiB = memory;
  if (hotplugMemory) {
    if (config.numa !== '1') throw new Error('NUMA needs to be enabled for memory hotplug');
    const max = maxMemoryMiB(config, hostBits);
    if (memory > max) throw new Error(`Total memory is bigger than ${max}MB`);
    for (let i = 0; i < MAX_NUMA; i++)
      if (config[`numa${i}`] !== undefined)
        throw new Error('cannot enable memory hotplugging with custom NUMA topology');
    staticMiB = STATIC_MEMORY_MIB * (config.hugepages === '1024' ? sockets : 1);
    if (memory < staticMiB) throw new Error(`minimum memory must be ${staticMiB}MB`);
    argv.push('-m', `size=${staticMiB},slots=255,maxmem=${max}M`);
  } else argv.push('-m', String(memory));

  if (config.numa === '1') argv.push(...numaArgs(config, staticMiB, sockets, cores));
  if (hotplugMemory) {
    for (const dimm of dimmsUpTo(config, memory, staticMiB)) {
      argv.push('-object', `memory-backend-ram,id=mem-${dimm.name},size=${dimm.sizeMiB}M`);
      argv.push('-device', `pc-dimm,id=${dimm.name},memdev=mem-${dimm.name},node=${dimm.node}`);
      if (dimm.totalMiB > memory)
        throw new Error(`memory size (${memory}) must be aligned to ${dimm.sizeMiB} for hotplugging`);
    }
  }
  return argv;
}

/** `-object`/`-numa` per node: the custom `numaN` nodes, or the static memory split over the sockets. */
function numaArgs(config: Record<string, string>, staticMiB: number, sockets: number, cores: number): string[] {
  const argv: string[] = [];
  let customTotal = 0;
  for (let i = 0; i < MAX_NUMA; i++) {
    const entry = config[`numa${i}`];
    if (entry === undefined) continue;
    const numa = parsePropertyString(entry);
    if (!numa.memory) throw new Error(`missing NUMA node${i} memory value`);
    if (numa.cpus === undefined) throw new Error(`missing NUMA node${i} cpus`);
    customTotal += Number(numa.memory);
    argv.push('-object', `memory-backend-ram,id=ram-node${i},size=${numa.memory}M`);
    argv.push('-numa', `node,nodeid=${i},cpus=${numa.cpus.split(';').join(',cpus=')},memdev=ram-node${i}`);
  }
  if (customTotal && customTotal !== staticMiB)
    throw new Error('total memory for NUMA nodes must be equal to vm static memory');
  if (customTotal) return argv;
  for (let i = 0; i < sockets; i++) {
    const first = cores * i;
    const cpus = cores > 1 ? `${first}-${first + cores - 1}` : String(first);
    argv.push('-object', `memory-backend-ram,id=ram-node${i},size=${staticMiB / sockets}M`);
    argv.push('-numa', `node,nodeid=${i},cpus=${cpus},memdev=ram-node${i}`);
  }
  return argv;
}

const dimmIndex = (name: string) => Number(/^dimm(\d+)$/.exec(name)?.[1] ?? -1);

/** Where qemu-server's Memory.pm dies without a newline (Perl then adds the place), per flavour. */
const MEMORY_PM_LINE = { '8.4': 232, '9.1': 236 } as const;

/**
 * What qemu_memory_hotplug does for a running VM going from its config's memory to `wantedMiB`: the
 * DIMMs to plug, in order, or to unplug (newest first, while the memory is above the wanted value),
 * or the error it dies with before touching QEMU.
 */
export type MemoryChange =
  | { kind: 'none' }
  | { kind: 'plug'; dimms: Dimm[] }
  | { kind: 'unplug'; names: string[] }
  | { kind: 'error'; message: string };

export function planMemoryHotplug(
  config: Record<string, string>,
  wanted: string | undefined,
  hostBits: number | undefined,
  flavour: '8.4' | '9.1',
  /** The DIMMs QEMU has (query-memory-devices); by default those the config's memory implies. */
  present?: Array<{ name: string; sizeMiB: number }>,
): MemoryChange {
  const current = currentMemoryMiB(config.memory);
  const target = currentMemoryMiB(wanted);
  if (target === current) return { kind: 'none' };
  const sockets = Number(config.sockets ?? 1) || 1;
  const staticMiB = STATIC_MEMORY_MIB * (config.hugepages === '1024' ? sockets : 1);
  if (target < staticMiB)
    return {
      kind: 'error',
      message: `memory can't be lower than ${staticMiB} MB at /usr/share/perl5/PVE/QemuServer/Memory.pm line ${MEMORY_PM_LINE[flavour]}.\n`,
    };
  const max = maxMemoryMiB(config, hostBits);
  if (target > max) return { kind: 'error', message: `you cannot add more memory than max mem ${max} MB!\n` };
  if (target > current)
    return { kind: 'plug', dimms: dimmsUpTo(config, target, staticMiB).filter((d) => d.totalMiB > current) };
  const plugged = present ?? dimmsUpTo(config, current, staticMiB).filter((d) => d.totalMiB <= current);
  const newestFirst = [...plugged].sort((a, b) => dimmIndex(b.name) - dimmIndex(a.name));
  const names: string[] = [];
  let total = current;
  for (const dimm of newestFirst) {
    if (total <= target) break;
    names.push(dimm.name);
    total -= dimm.sizeMiB;
  }
  return { kind: 'unplug', names };
}

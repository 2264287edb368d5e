/**
 * What a simulated node is made of: its address in the cluster network, memory and CPU. The node status
 * and the cluster's node rows read their figures from here; the base memory is what the host itself
 * uses before any guest runs.
 */
export interface NodeHardware {
  ip: string;
  memoryBytes: number;
  /** Memory the host uses without guests (kernel, pmxcfs, pveproxy…). */
  baseMemoryUsedBytes: number;
  swapBytes: number;
  cpuModel: string;
  sockets: number;
  /** Physical cores per socket. */
  cores: number;
  /** Hardware threads per core. */
  threads: number;
  mhz: string;
}

const GiB = 1024 ** 3;

/** A plausible small server; the sample cluster gives each node its own address. */
export function defaultNodeHardware(index: number): NodeHardware {
  return {
    ip: `192.0.2.${11 + index}`,
    memoryBytes: 64 * GiB,
    baseMemoryUsedBytes: Math.round(2.5 * GiB),
    swapBytes: 8 * GiB,
    cpuModel: 'Intel(R) Xeon(R) Silver 4314 CPU @ 2.40GHz',
    sockets: 1,
    cores: 8,
    threads: 2,
    mhz: '2400.000',
  };
}

export const logicalCpus = (hw: NodeHardware) => hw.sockets * hw.cores * hw.threads;

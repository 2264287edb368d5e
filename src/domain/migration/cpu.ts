export interface CpuTopology {
  sockets: number;
  cores: number;
  /** Set when sockets × cores exceeds the vCPU count, so the guest sees exactly as many CPUs as before. */
  vcpus?: number;
}

/**
 * sockets = ceil(numCPU / coresPerSocket), cores = coresPerSocket. vCenter reports 0 or no
 * coresPerSocket for "one core per socket".
 */
export function cpuTopology(numCpu: number, coresPerSocket: number): CpuTopology {
  if (!Number.isInteger(numCpu) || numCpu < 1) throw new RangeError(`numCPU must be a whole number ≥ 1, got ${numCpu}`);
  const perSocket = Number.isInteger(coresPerSocket) && coresPerSocket >= 1 ? Math.min(coresPerSocket, numCpu) : 1;
  const sockets = Math.ceil(numCpu / perSocket);
  const topology: CpuTopology = { sockets, cores: perSocket };
  if (sockets * perSocket !== numCpu) topology.vcpus = numCpu;
  return topology;
}

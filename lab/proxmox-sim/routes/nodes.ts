import { VERSIONS, type Cluster } from '../cluster';
import { diskUsage } from '../disk-usage';
import { guestMemoryOnNode } from '../guest-stats';
import { logicalCpus } from '../node-hardware';
import { nodeFingerprint } from '../node-certificate';
import type { RouteTable } from './types';

/**
 * The cluster's members and each node's own status, as pve-manager answers them: /cluster/status (from
 * pmxcfs: the cluster, then one row per node), /nodes and /nodes/{node}/status (uptime, load, CPU,
 * memory, kernel and the root file system). The node's figures come from its hardware definition; its
 * used memory counts what its running guests are given; its root file system is the file system the
 * simulator's storage folders live on.
 */
const KERNEL: Record<Cluster['flavour'], { release: string; version: string }> = {
  '8.4': { release: '6.8.12-11-pve', version: '#1 SMP PREEMPT_DYNAMIC PMX 6.8.12-11 (2025-05-22T09:39Z)' },
  '9.1': { release: '6.17.2-1-pve', version: '#1 SMP PREEMPT_DYNAMIC PMX 6.17.2-1 (2025-10-21T11:55Z)' },
};

/** The node's root file system: where its (first) local storage folder is. */
function rootFolder(cluster: Cluster, node: string): string {
  const local = cluster.storages.list().find((s) => !s.shared) ?? cluster.storages.list()[0]!;
  return cluster.storages.folder(local, node);
}

export function nodeFigures(cluster: Cluster, node: string) {
  const hw = cluster.hardware(node);
  const used = Math.min(hw.memoryBytes, hw.baseMemoryUsedBytes + guestMemoryOnNode(cluster, node));
  return {
    uptime: 3 * 86400 + Math.floor((Date.now() - cluster.bootedMs) / 1000),
    cpu: 0.02,
    maxcpu: logicalCpus(hw),
    memory: { total: hw.memoryBytes, used, free: hw.memoryBytes - used },
    rootfs: diskUsage(rootFolder(cluster, node)),
  };
}

/**
 * A node row of /nodes and /cluster/resources (pve-manager's extract_node_stats): without Sys.Audit on
 * the node only its id, type, status and level (`exclude_stats`).
 */
export function nodeResource(cluster: Cluster, node: string, canAudit = true): Record<string, unknown> {
  const f = nodeFigures(cluster, node);
  if (!canAudit) return { id: `node/${node}`, node, type: 'node', status: 'online', level: '' };
  return {
    id: `node/${node}`,
    type: 'node',
    node,
    status: 'online',
    level: '',
    uptime: f.uptime,
    cpu: f.cpu,
    maxcpu: f.maxcpu,
    mem: f.memory.used,
    maxmem: f.memory.total,
    disk: f.rootfs.used,
    maxdisk: f.rootfs.total,
  };
}

export const nodeRoutes: RouteTable = {
  'GET /cluster/status': ({ cluster }) => [
    {
      type: 'cluster',
      id: 'cluster',
      name: cluster.name,
      nodes: cluster.nodes.length,
      quorate: 1,
      version: cluster.nodes.length,
    },
    ...cluster.nodes.map((node, i) => ({
      type: 'node',
      id: `node/${node}`,
      name: node,
      nodeid: i + 1,
      ip: cluster.hardware(node).ip,
      // The API answers from the first node (the one a client connects to).
      local: i === 0 ? 1 : 0,
      online: 1,
      level: '',
    })),
  ],

  /** Nodes.pm index: extract_node_stats and each node's certificate fingerprint (get_node_fingerprint). */
  'GET /nodes': ({ cluster, perm }) =>
    cluster.nodes.map((node) => {
      const fingerprint = nodeFingerprint(cluster);
      return {
        ...nodeResource(cluster, node, perm.has(`/nodes/${node}`, ['Sys.Audit'])),
        ...(fingerprint ? { ssl_fingerprint: fingerprint } : {}),
      };
    }),

  'GET /nodes/{node}/status': ({ cluster, params }) => {
    const node = params.node!;
    cluster.requireNode(node);
    const hw = cluster.hardware(node);
    const f = nodeFigures(cluster, node);
    const { version, repoid } = VERSIONS[cluster.flavour];
    const kernel = KERNEL[cluster.flavour];
    const memory = cluster.flavour === '8.4' ? f.memory : { ...f.memory, available: f.memory.free };
    return {
      uptime: f.uptime,
      idle: 0,
      loadavg: ['0.08', '0.12', '0.10'],
      kversion: `Linux ${kernel.release} ${kernel.version}`,
      'current-kernel': { sysname: 'Linux', release: kernel.release, version: kernel.version, machine: 'x86_64' },
      'boot-info': { mode: 'efi', secureboot: 0 },
      cpuinfo: {
        // pve-common's read_cpuinfo: `cores` counts the physical cores of every socket, `cpus` the threads;
        // `hvm` is the result of a Perl match on the flags (`=~ m/\s(vmx|svm)\s/`), a string ("1").
        model: hw.cpuModel,
        vendor: 'GenuineIntel',
        family: '6',
        sockets: hw.sockets,
        cores: hw.sockets * hw.cores,
        cpus: logicalCpus(hw),
        mhz: hw.mhz,
        hvm: '1',
        user_hz: 100,
        flags:
          'fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush mmx fxsr sse sse2 ht syscall nx lm constant_tsc rep_good nopl xtopology cpuid pni pclmulqdq vmx ssse3 fma cx16 sse4_1 sse4_2 x2apic movbe popcnt aes xsave avx f16c rdrand hypervisor lahf_lm abm avx2 avx512f',
      },
      cpu: f.cpu,
      wait: 0,
      memory,
      ksm: { shared: 0 },
      swap: { total: hw.swapBytes, used: 0, free: hw.swapBytes },
      pveversion: `pve-manager/${version}/${repoid}`,
      rootfs: { total: f.rootfs.total, avail: f.rootfs.avail, used: f.rootfs.used, free: f.rootfs.free },
    };
  },
};

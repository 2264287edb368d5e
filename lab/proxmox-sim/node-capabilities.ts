/**
 * The node's QEMU capabilities as qemu-server lists them: CPU models (CPUConfig.pm's $cpu_vendor_list, the
 * x86-64-vN models built on qemu64/kvm64, and custom models), the CPU flags PVE lets a VM set (PVE 9:
 * CPUConfig.pm's $supported_cpu_flags, qemu-server 9.1.2), and the machine types of the node's QEMU (pve-qemu's
 * machine-versions-x86_64.json: QEMU 9.2 on PVE 8.4, 10.1 on PVE 9.1) with PVE's `+pveN` revisions
 * (Machine.pm's $PVE_MACHINE_VERSION).
 */
import type { Flavour } from './schema/subset';

const INTEL = [
  '486',
  'pentium',
  'pentium2',
  'pentium3',
  'coreduo',
  'core2duo',
  'Conroe',
  'Penryn',
  'Nehalem',
  'Nehalem-IBRS',
  'Westmere',
  'Westmere-IBRS',
  'SandyBridge',
  'SandyBridge-IBRS',
  'IvyBridge',
  'IvyBridge-IBRS',
  'Haswell',
  'Haswell-IBRS',
  'Haswell-noTSX',
  'Haswell-noTSX-IBRS',
  'Broadwell',
  'Broadwell-IBRS',
  'Broadwell-noTSX',
  'Broadwell-noTSX-IBRS',
  'Skylake-Client',
  'Skylake-Client-IBRS',
  'Skylake-Client-noTSX-IBRS',
  'Skylake-Client-v4',
  'Skylake-Server',
  'Skylake-Server-IBRS',
  'Skylake-Server-noTSX-IBRS',
  'Skylake-Server-v4',
  'Skylake-Server-v5',
  'Cascadelake-Server',
  'Cascadelake-Server-v2',
  'Cascadelake-Server-noTSX',
  'Cascadelake-Server-v4',
  'Cascadelake-Server-v5',
  'Cooperlake',
  'Cooperlake-v2',
  'KnightsMill',
  'Icelake-Client',
  'Icelake-Client-noTSX',
  'Icelake-Server',
  'Icelake-Server-noTSX',
  'Icelake-Server-v3',
  'Icelake-Server-v4',
  'Icelake-Server-v5',
  'Icelake-Server-v6',
  'SapphireRapids',
  'SapphireRapids-v2',
  'GraniteRapids',
];
const AMD = [
  'athlon',
  'phenom',
  'Opteron_G1',
  'Opteron_G2',
  'Opteron_G3',
  'Opteron_G4',
  'Opteron_G5',
  'EPYC',
  'EPYC-IBPB',
  'EPYC-v3',
  'EPYC-v4',
  'EPYC-Rome',
  'EPYC-Rome-v2',
  'EPYC-Rome-v3',
  'EPYC-Rome-v4',
  'EPYC-Milan',
  'EPYC-Milan-v2',
  'EPYC-Genoa',
];
const DEFAULT = ['host', 'kvm32', 'kvm64', 'qemu32', 'qemu64', 'max'];

/** The built-in abstract models and the model each reports to the guest. */
const BUILTIN: Record<string, string> = {
  'x86-64-v2': 'qemu64',
  'x86-64-v2-AES': 'qemu64',
  'x86-64-v3': 'qemu64',
  'x86-64-v4': 'qemu64',
};

export function cpuModels(): Array<{ name: string; custom: number; vendor: string }> {
  const vendor = (name: string) =>
    INTEL.includes(name) ? 'GenuineIntel' : AMD.includes(name) ? 'AuthenticAMD' : 'default';
  return [
    ...[...INTEL, ...AMD, ...DEFAULT].map((name) => ({ name, custom: 0, vendor: vendor(name) })),
    ...Object.entries(BUILTIN).map(([name, reported]) => ({ name, custom: 0, vendor: vendor(reported) })),
  ].sort((a, b) => a.name.localeCompare(b.name));
}

/** PVE 9.1's GET …/capabilities/qemu/cpu-flags. */
export const CPU_FLAGS: ReadonlyArray<{ name: string; description: string }> = [
  {
    name: 'nested-virt',
    description:
      "Controls nested virtualization, namely 'svm' for AMD CPUs and 'vmx' for Intel CPUs. Live migration still only works if it's the same flag on both sides. Use a CPU model similar to the host, with the same vendor, not x86-64-vX!",
  },
  { name: 'md-clear', description: 'Required to let the guest OS know if MDS is mitigated correctly.' },
  { name: 'pcid', description: 'Meltdown fix cost reduction on Westmere, Sandy-, and IvyBridge Intel CPUs.' },
  { name: 'spec-ctrl', description: 'Allows improved Spectre mitigation with Intel CPUs.' },
  { name: 'ssbd', description: "Protection for 'Speculative Store Bypass' for Intel models." },
  { name: 'ibpb', description: 'Allows improved Spectre mitigation with AMD CPUs.' },
  { name: 'virt-ssbd', description: "Basis for 'Speculative Store Bypass' protection for AMD models." },
  {
    name: 'amd-ssbd',
    description: "Improves Spectre mitigation performance with AMD CPUs, best used with 'virt-ssbd'.",
  },
  { name: 'amd-no-ssb', description: 'Notifies guest OS that host is not vulnerable for Spectre on AMD CPUs.' },
  { name: 'pdpe1gb', description: 'Allow guest OS to use 1GB size pages, if host HW supports it.' },
  {
    name: 'hv-tlbflush',
    description: 'Improve performance in overcommitted Windows guests. May lead to guest bluescreens on old CPUs.',
  },
  { name: 'hv-evmcs', description: 'Improve performance for nested virtualization. Only supported on Intel CPUs.' },
  { name: 'aes', description: 'Activate AES instruction set for HW acceleration.' },
];

/** QEMU's x86 machine versions (pc-i440fx-2.0 to 2.3 gone since QEMU 9.1, 2.4 and 2.5 since 10.1). */
const QEMU_VERSIONS: Record<Flavour, string[]> = {
  '8.4': ['2.4', '2.5'],
  '9.1': [],
};
const COMMON_VERSIONS = [
  ...['2.6', '2.7', '2.8', '2.9', '2.10', '2.11', '2.12', '3.0', '3.1', '4.0', '4.1', '4.2'],
  ...['5.0', '5.1', '5.2', '6.0', '6.1', '6.2', '7.0', '7.1', '7.2', '8.0', '8.1', '8.2', '9.0', '9.1', '9.2'],
];
const NEWER: Record<Flavour, string[]> = { '8.4': [], '9.1': ['10.0', '10.1'] };

const PVE_REVISIONS: Record<Flavour, Record<string, Record<string, string>>> = {
  '8.4': {
    '4.1': {
      '+pve1': 'Introduction of pveX versioning, no changes.',
      '+pve2': 'Increases the number of SCSI drives supported.',
    },
    '9.2': { '+pve1': 'Disables S3/S4 power states by default.' },
  },
  '9.1': {
    '4.1': {
      '+pve1': 'Introduction of pveX versioning, no changes.',
      '+pve2': 'Increases the number of SCSI drives supported.',
    },
    '9.2': { '+pve1': 'Disables S3/S4 power states by default.' },
    '10.0': { '+pve1': 'Set host_mtu vNIC option even with default value for migration compat.' },
  },
};

export interface MachineType {
  id: string;
  type: 'q35' | 'i440fx';
  version: string;
  changes?: string;
}

const versionParts = (v: string) => {
  const m = /(\d+)\.(\d+)(?:\.\d+)?(?:\+pve(\d+))?$/.exec(v)!;
  return [Number(m[1]), Number(m[2]), m[3] === undefined ? 0 : Number(m[3])];
};

/** Machine.pm's types: QEMU's list and the +pveN revisions, newest first (8.4 by id as text, 9.1 by version). */
export function machineTypes(flavour: Flavour): MachineType[] {
  const versions = [...QEMU_VERSIONS[flavour], ...COMMON_VERSIONS, ...NEWER[flavour]];
  const machines: MachineType[] = versions.flatMap((version) => [
    { id: `pc-q35-${version}`, type: 'q35' as const, version },
    { id: `pc-i440fx-${version}`, type: 'i440fx' as const, version },
  ]);
  machines.push({ id: 'pc-i440fx-4.0.1', type: 'i440fx', version: '4.0.1' });
  const revisions = machines.flatMap((m) =>
    Object.entries(PVE_REVISIONS[flavour][m.version] ?? {}).map(([rev, changes]) => ({
      id: `${m.id}${rev}`,
      type: m.type,
      version: `${m.version}${rev}`,
      changes,
    })),
  );
  const all = [...machines, ...revisions];
  if (flavour === '8.4') return all.sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  return all.sort((a, b) => {
    const [pa, pb] = [versionParts(a.id), versionParts(b.id)];
    return pb[0]! - pa[0]! || pb[1]! - pa[1]! || pb[2]! - pa[2]!;
  });
}

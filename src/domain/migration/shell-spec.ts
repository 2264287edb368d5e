import type { VmShellSpec } from '../pve-vm-spec';
import { bootOrder } from './actions';
import type { VmAssessment } from './assess';
import { pveNic } from './nics';

export interface ShellOptions {
  node: string;
  vcenter: string;
  /** `agent: enabled=1` (default), so verify-guest can ask the guest agent; false leaves it off. */
  guestAgent?: boolean;
}

/** A migrated VM's spec: `name` is always set (it is how ferry knows its own VM at the VMID). */
export type MigratedVmSpec = VmShellSpec & { name: string };

/**
 * The shell of a migrated VM: the VMware CPU, memory and firmware, its CD drives and (with `tpm: new`)
 * a new TPM; no disks, NICs come after.
 */
export function shellSpec(a: VmAssessment, options: ShellOptions): MigratedVmSpec {
  if (a.vmid === undefined || a.cpu === undefined)
    throw new Error(`${a.name} cannot be built: ${a.refusals.map((r) => r.reason).join('; ')}`);
  return {
    node: options.node,
    vmid: a.vmid,
    name: a.pveName,
    machine: a.firmware.machine,
    bios: a.firmware.bios,
    ...(a.firmware.efidisk ? { efidisk: a.firmware.efidisk } : {}),
    ...(a.tpm ? { tpmstate: a.tpm } : {}),
    ...(a.cdroms?.length ? { cdroms: a.cdroms.map(({ slot, iso }) => (iso ? { slot, iso } : { slot })) } : {}),
    sockets: a.cpu.sockets,
    cores: a.cpu.cores,
    ...(a.cpu.vcpus !== undefined ? { vcpus: a.cpu.vcpus } : {}),
    memory: a.memoryMb,
    ostype: a.ostype.ostype,
    scsihw: 'virtio-scsi-single',
    ...(options.guestAgent === false ? {} : { agent: 'enabled=1' }),
    onboot: false,
    tags: ['ferry', 'migrated'],
    description: `Migrated by ferry from vCenter ${options.vcenter}, ${a.moid} ("${a.name}").`,
  };
}

/**
 * A live import at cutover: the shell's settings, the NICs with the VMware MACs, every disk
 * `import-from` its source and the boot order, with live-restore so PVE starts the VM at once and
 * streams the disks in behind it (the EFI disk is created new, as PVE never live-imports it).
 */
export function liveImportSpec(
  a: VmAssessment,
  options: ShellOptions,
  sources: Readonly<Record<string, string>>,
  storage: string,
): MigratedVmSpec {
  const importDisks = a.disks.map((d) => {
    const source = sources[d.slot];
    if (source === undefined) throw new Error(`${a.name}: no source for ${d.slot} (${d.source})`);
    return { slot: d.slot, storage, source };
  });
  return { ...shellSpec(a, options), nics: a.nics.map(pveNic), importDisks, boot: bootOrder(a), liveRestore: true };
}

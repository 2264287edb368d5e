import { GIB } from '../placement/units';
import { pveNicOf } from '../provisioning/hardware';
import { diskStorageOf, nicInterfaces, nicNetworkOf } from '../provisioning/record-hardware';
import type { NetboxVmRecord, ProvisionSpec, SpecDefaults } from '../provisioning/spec';
import type { SlotNicSpec } from '../pve-vm-spec';
import { normaliseOptionValue } from './disk-options';

/**
 * What NetBox says a built VM should be, in Proxmox's terms: the very translation provisioning builds
 * with (specFromRecord, then pveNicOf for each NIC), so a VM just provisioned from a record plans to
 * nothing. Only the fields day 2 manages: vCPUs, memory, disks (size, storage, options) and NICs.
 * (specFromRecord validates with zod; this file does not call it, so it stays shared by every workflow.)
 */

export interface IntendedDisk {
  slot: string;
  storage: string;
  /** The record names the storage (ferry_storage): only then does a different one mean a move. */
  storageFromNetbox: boolean;
  sizeGiB: number;
  sizeBytes: number;
  /** Options as Proxmox writes them (`iothread: '1'`, `discard: 'on'`). */
  options: Record<string, string>;
}

export interface IntendedNic {
  slot: string;
  /** The NIC as provisioning would create it (MAC only when NetBox has one). */
  nic: SlotNicSpec;
  /** The record names the bridge (ferry_network): only then does a different one mean a change. */
  bridgeFromNetbox: boolean;
}

export interface VmIntent {
  name: string;
  netboxId?: number;
  vcpus: number;
  memoryMiB: number;
  disks: IntendedDisk[];
  nics: IntendedNic[];
}

/** The NetBox record a spec was built from, to tell what the record chose from what ferry.yaml's defaults did. */
export interface IntentSource {
  record: NetboxVmRecord;
  defaults: SpecDefaults;
}

/**
 * The intent of a spec: for a NetBox VM, the spec provisioning's `specFromRecord` builds from the record
 * (the caller builds it: one translation, whose problems it reports), with the record as `source`.
 * Without a source (a spec given whole) every storage and bridge counts as chosen.
 */
export function intentFromSpec(spec: ProvisionSpec, source?: IntentSource): VmIntent {
  const interfaces = source ? nicInterfaces(source.record) : [];
  return {
    name: spec.name,
    ...(spec.netboxId !== undefined ? { netboxId: spec.netboxId } : {}),
    vcpus: spec.cores * spec.sockets,
    memoryMiB: spec.memoryMiB,
    disks: spec.disks.map((d) => ({
      slot: d.slot,
      storage: d.storage,
      storageFromNetbox: source
        ? diskStorageOf(
            source.record,
            source.record.disks?.find((r) => r.name === d.slot),
            source.defaults,
          ).fromNetbox
        : true,
      sizeGiB: d.sizeGiB,
      sizeBytes: d.sizeGiB * GIB,
      options: Object.fromEntries(Object.entries(d.options).map(([k, v]) => [k, normaliseOptionValue(v)])),
    })),
    nics: spec.nics.map((n) => ({
      slot: n.slot,
      nic: pveNicOf(n),
      bridgeFromNetbox: source
        ? nicNetworkOf(
            source.record,
            n.slot,
            interfaces.find((i) => i.name === n.slot),
            source.defaults,
          ).fromNetbox
        : true,
    })),
  };
}

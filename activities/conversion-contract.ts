/**
 * The guest conversion activities (ferry-convert queue: workers that mount the migration datastore and
 * have virt-v2v). activities/migration/conversion.ts implements them on src/conversion.
 */
import type { ConversionFacts, ConversionResult, ConversionSettings, GuestInspection } from '../src/domain/conversion';

/** A VM's VMware disks on the Proxmox storage that mounts the migration datastore, in slot order. */
export interface ConversionDisks {
  /** PVE storage id (migration.datastores[].storage). */
  storage: string;
  /** `source`: the VMDK's path relative to the storage root. */
  disks: Array<{ slot: string; source: string }>;
}

export interface ConversionActivities {
  /** Reads the guest on its VMDKs, read-only: what conversion would do (the plan, the cutover plan). */
  inspectGuest(input: ConversionDisks & { firmware: 'bios' | 'efi'; agentPackages?: string }): Promise<GuestInspection>;
  /** Converts the guest on overlays of its VMDKs (VMware's files are only read); idempotent by VMID. */
  convertGuest(
    input: ConversionDisks & { vmid: number; facts: ConversionFacts; settings: ConversionSettings },
  ): Promise<ConversionResult>;
  /** The VM's overlays for an overlay cutover without conversion: made where missing, kept where they are. */
  createOverlays(
    input: ConversionDisks & { vmid: number },
  ): Promise<{ overlays: Array<{ slot: string; volume: string }> }>;
  /** Drops the VM's overlays (rollback, or once its disks are in Proxmox): the files removed. */
  removeConversionOverlays(input: ConversionDisks & { vmid: number }): Promise<{ removed: string[] }>;
}

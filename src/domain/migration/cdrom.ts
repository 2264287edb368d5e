import type { VmCdrom, VmRecord } from '../inventory';
import type { CdromDriveSpec } from '../pve-vm-spec';
import { parseDatastorePath, type PlannedDisk } from './disks';

/**
 * `migration.isoMap`: VMware ISO path (`[datastore] path/file.iso`) → Proxmox ISO volume
 * (`local:iso/file.iso`). Exact paths: the space after the datastore's bracket is the only thing
 * normalised (vCenter writes `[ds] path`, some tools `[ds]path`); VMFS paths are case-sensitive.
 */
export type IsoMap = Readonly<Record<string, string>>;

/** A VMware CD/DVD drive as a Proxmox CD drive: its slot, the ISO in it, and what did not come along. */
export interface PlannedCdrom extends CdromDriveSpec {
  /** The VMware drive, e.g. `CD/DVD drive 1`. */
  source: string;
  /** What the VMware drive held that the Proxmox drive does not get, and why (an empty drive then). */
  notCarried?: string;
}

/**
 * Where CD drives go: `ide2` first (PVE's CD slot; VMware's first CD sits on IDE 1:0, the same
 * secondary-master position), then the rest of the IDE bus, then SATA. A slot a migrated disk holds
 * (disk bus `keep`) is skipped.
 */
const CDROM_SLOTS = ['ide2', 'ide3', 'ide0', 'ide1', 'sata0', 'sata1', 'sata2', 'sata3', 'sata4', 'sata5'];

/** `[ds]  dir/x.iso` → `[ds] dir/x.iso`; a name that is no datastore path stays as it is (trimmed). */
export function normaliseIsoPath(fileName: string): string {
  const parsed = parseDatastorePath(fileName);
  return parsed ? `[${parsed.datastore}] ${parsed.path}` : fileName.trim();
}

function lookUpIso(isoMap: IsoMap, fileName: string): string | undefined {
  const wanted = normaliseIsoPath(fileName);
  for (const [from, to] of Object.entries(isoMap)) if (normaliseIsoPath(from) === wanted) return to;
  return undefined;
}

/** What the Proxmox drive holds for a VMware drive: the mapped ISO, or nothing and what was left behind. */
function driveContent(cdrom: VmCdrom, isoMap: IsoMap): Pick<PlannedCdrom, 'iso' | 'notCarried'> {
  const b = cdrom.backing;
  switch (b.kind) {
    case 'iso': {
      const path = normaliseIsoPath(b.fileName);
      if (!cdrom.startConnected) return { notCarried: `ISO ${path}, not connected at power-on in VMware` };
      const iso = lookUpIso(isoMap, path);
      return iso ? { iso } : { notCarried: `ISO ${path}, which migration.isoMap does not map` };
    }
    case 'host-device':
      return { notCarried: `the ESXi host's CD drive${b.deviceName ? ` ${b.deviceName}` : ''} (host passthrough)` };
    case 'other':
      return { notCarried: `a ${b.backingType} backing` };
    case 'client-device':
    case 'none':
      // The client's drive is VMware's way of an empty drive: nothing is left behind.
      return {};
  }
}

/**
 * Every VMware CD/DVD drive becomes a Proxmox CD drive, never dropped silently: with the ISO that
 * `isoMap` names, else empty (and `notCarried` says what it held). CD drives are not in the boot order.
 */
export function planCdroms(
  vm: Pick<VmRecord, 'cdroms'>,
  disks: ReadonlyArray<Pick<PlannedDisk, 'slot'>>,
  isoMap: IsoMap = {},
): { cdroms: PlannedCdrom[]; problems: string[] } {
  const ordered = [...(vm.cdroms ?? [])].sort(
    (a, b) =>
      Number(b.controllerType === 'ide') - Number(a.controllerType === 'ide') ||
      a.controllerBusNumber - b.controllerBusNumber ||
      a.unitNumber - b.unitNumber ||
      a.key - b.key,
  );
  const free = CDROM_SLOTS.filter((slot) => !disks.some((d) => d.slot === slot));
  const cdroms: PlannedCdrom[] = [];
  const problems: string[] = [];
  for (const cdrom of ordered) {
    const slot = free.shift();
    if (slot === undefined) {
      problems.push(`${cdrom.label}: no free IDE or SATA slot left for a CD drive; not carried over`);
      continue;
    }
    cdroms.push({ slot, source: cdrom.label, ...driveContent(cdrom, isoMap) });
  }
  return { cdroms, problems };
}

/** `ide2: CD drive with local:iso/x.iso (CD/DVD drive 1)`, `ide3: empty CD drive (CD/DVD drive 2; not carried over: …)`. */
export function describeCdrom(c: PlannedCdrom): string {
  const what = c.iso ? `CD drive with ${c.iso}` : 'empty CD drive';
  return `${c.slot}: ${what} (${c.source}${c.notCarried ? `; not carried over: ${c.notCarried}` : ''})`;
}

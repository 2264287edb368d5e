import { parseDatastorePath, type DatastoreMapping } from '../migration/disks';

/**
 * The qcow2 overlays a conversion writes to instead of VMware's disks: one per disk, in the Proxmox
 * storage that mounts the migration datastore, named as PVE names a VM's volumes there
 * (`images/<vmid>/vm-<vmid>-disk-<n>.qcow2`), so PVE sees an ordinary volume of the VM (import-from and
 * move_disk take it, with an API token). Its backing file is the VMware VMDK, by a path relative to the
 * overlay: valid on every host that mounts the storage, wherever it mounts it. VMware's files are opened
 * read-only, so a rollback needs nothing but to drop the overlays.
 */
export interface OverlayDisk {
  slot: string;
  /** PVE volume id: `nfs-migration:20042/vm-20042-disk-0.qcow2`. */
  volume: string;
  /** Relative to the storage root: `images/20042/vm-20042-disk-0.qcow2`. */
  file: string;
  /** The VMDK, relative to the overlay's folder (qemu-img's backing file): `../../mig-web01/mig-web01.vmdk`. */
  backing: string;
  /** The VMDK, relative to the storage root (for checksums and checks). */
  source: string;
}

/** The storage-relative path of a disk's VMDK, as translateDiskPath places it (import-dir: below import/). */
export function sourceInStorage(
  fileName: string,
  mapping: Pick<DatastoreMapping, 'datastore' | 'layout'>,
): string | undefined {
  const parsed = parseDatastorePath(fileName);
  if (!parsed || parsed.datastore !== mapping.datastore) return undefined;
  return (mapping.layout ?? 'storage-root') === 'import-dir' ? `import/${parsed.path}` : parsed.path;
}

/** A VM's overlays, one per disk in slot order (disk numbers 0, 1, … as PVE would allocate them). */
export function overlayDisks(
  storage: string,
  vmid: number,
  disks: ReadonlyArray<{ slot: string; source: string }>,
): OverlayDisk[] {
  return disks.map(({ slot, source }, n) => {
    const file = `images/${vmid}/vm-${vmid}-disk-${n}.qcow2`;
    return {
      slot,
      volume: `${storage}:${vmid}/vm-${vmid}-disk-${n}.qcow2`,
      file,
      backing: relativeTo(`images/${vmid}`, source),
      source,
    };
  });
}

/**
 * Where a conversion keeps its record and its processes' ids, relative to the storage root: outside
 * PVE's `images/` (PVE takes every file there for a volume of the VM), in a folder PVE does not look at.
 */
export function conversionRecordFolder(vmid: number): string {
  return `.ferry/conversions/${vmid}`;
}

/** `to` as seen from folder `from`, both relative to one root (workflow code has no node:path). */
function relativeTo(from: string, to: string): string {
  const a = from.split('/').filter(Boolean);
  const b = to.split('/').filter(Boolean);
  let common = 0;
  while (common < a.length && common < b.length - 1 && a[common] === b[common]) common++;
  return [...a.slice(common).map(() => '..'), ...b.slice(common)].join('/');
}

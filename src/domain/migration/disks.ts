import type { VmDisk, VmRecord } from '../inventory';
import { refusal, type Refusal } from './refusal';

/** `[datastore] dir/file.vmdk` → its parts. */
export function parseDatastorePath(fileName: string): { datastore: string; path: string } | undefined {
  const match = /^\[([^\]]+)\]\s*(.+)$/.exec(fileName.trim());
  if (!match) return undefined;
  const path = match[2]!.trim();
  if (path.split('/').some((part) => part === '..' || part === '')) return undefined;
  return { datastore: match[1]!, path };
}

/**
 * A vSphere datastore that Proxmox nodes also mount: the same NFS export, seen as storage `storage` at
 * `path` on every node.
 */
export interface DatastoreMapping {
  datastore: string;
  storage: string;
  /** Where the PVE storage is mounted on the nodes, e.g. `/mnt/pve/nfs-migration`. */
  path: string;
  /** Where ferry-convert workers mount the same storage (default: `path`). */
  convertPath?: string;
  /**
   * `storage-root` (default): the datastore root is the storage root. `import-dir`: the datastore is
   * exported from the storage's `import/` folder.
   */
  layout?: 'storage-root' | 'import-dir';
}

export interface TranslatedDiskPath {
  storage: string;
  /** The file on the Proxmox nodes (import-from by path and attaching need root@pam). */
  absolutePath: string;
  /**
   * `STORAGE:import/FILE` when the file sits directly in the storage's import folder, which any
   * user with Datastore.Audit can import from (PVE ≥ 8.4 for vmdk). PVE allows no sub-folders there.
   */
  importVolume?: string;
}

export type DiskPathResult = ({ ok: true } & TranslatedDiskPath) | { ok: false; refusal: Refusal };

export function translateDiskPath(
  disk: Pick<VmDisk, 'label' | 'fileName'>,
  mappings: readonly DatastoreMapping[],
): DiskPathResult {
  const parsed = parseDatastorePath(disk.fileName);
  if (!parsed) {
    return {
      ok: false,
      refusal: refusal(
        'disk-path-invalid',
        disk.label,
        `${disk.label}: cannot read the backing file name "${disk.fileName}"`,
      ),
    };
  }
  const mapping = mappings.find((m) => m.datastore === parsed.datastore);
  if (!mapping) {
    return {
      ok: false,
      refusal: refusal(
        'disk-unmapped-datastore',
        disk.label,
        `${disk.label} is on datastore ${parsed.datastore}, which no Proxmox storage mounts (known: ${mappings.map((m) => m.datastore).join(', ') || 'none'})`,
      ),
    };
  }
  const root = mapping.path.replace(/\/+$/, '');
  if ((mapping.layout ?? 'storage-root') === 'import-dir') {
    return {
      ok: true,
      storage: mapping.storage,
      absolutePath: `${root}/import/${parsed.path}`,
      importVolume: parsed.path.includes('/') ? undefined : `${mapping.storage}:import/${parsed.path}`,
    };
  }
  const inImport = /^import\/[^/]+$/.test(parsed.path);
  return {
    ok: true,
    storage: mapping.storage,
    absolutePath: `${root}/${parsed.path}`,
    importVolume: inImport ? `${mapping.storage}:${parsed.path}` : undefined,
  };
}

/** Disks ferry will not move: independent or non-persistent modes lose writes or skip snapshots; RDMs are LUNs, not files. */
export function diskRefusals(vm: Pick<VmRecord, 'disks'>): Refusal[] {
  const refusals: Refusal[] = [];
  for (const disk of vm.disks) {
    if (disk.rdm) {
      refusals.push(
        refusal(
          'rdm',
          disk.label,
          `${disk.label} is a raw device mapping (${disk.rdm.compatibilityMode}); present the LUN to Proxmox directly instead`,
        ),
      );
    } else if (disk.diskMode !== 'persistent') {
      refusals.push(
        refusal(
          'independent-disk',
          disk.label,
          `${disk.label} is in disk mode ${disk.diskMode}; set it to dependent (persistent) in vCenter before migrating`,
        ),
      );
    }
  }
  return refusals;
}

/** PVE disk buses ferry attaches to. */
export type PveDiskBus = 'scsi' | 'sata' | 'ide';

/**
 * `scsi`: all disks on virtio-scsi (fast, needs the guest's virtio driver). `keep`: SATA/IDE stay on their
 * bus. `sata`: all disks on SATA (what a guest without virtio drivers boots from; see conversion/devices).
 */
export type DiskBusPolicy = 'scsi' | 'keep' | 'sata';

export interface PlannedDisk {
  /** `scsi0`, `sata1`, … */
  slot: string;
  source: string;
  fileName: string;
  capacityBytes: number;
}

const BUS_LIMITS: Record<PveDiskBus, number> = { scsi: 31, sata: 6, ide: 4 };

/** Disk slots in VMware order (controller bus, then unit), numbered per PVE bus. */
export function planDiskSlots(
  vm: Pick<VmRecord, 'disks'>,
  policy: DiskBusPolicy,
): { disks: PlannedDisk[]; problems: string[] } {
  const ordered = [...vm.disks].sort(
    (a, b) =>
      a.controllerBusNumber - b.controllerBusNumber || a.controllerKey - b.controllerKey || a.unitNumber - b.unitNumber,
  );
  const next: Record<PveDiskBus, number> = { scsi: 0, sata: 0, ide: 0 };
  const disks: PlannedDisk[] = [];
  const problems: string[] = [];
  for (const disk of ordered) {
    let bus: PveDiskBus =
      policy === 'sata' || (policy === 'keep' && disk.controllerType === 'ahci')
        ? 'sata'
        : policy === 'keep' && disk.controllerType === 'ide'
          ? 'ide'
          : 'scsi';
    if (policy === 'sata' && next.sata >= BUS_LIMITS.sata) {
      // Not dropped: on virtio-scsi the guest sees it once it has the driver.
      problems.push(
        `${disk.label}: on scsi${next.scsi}, as SATA takes ${BUS_LIMITS.sata} disks: the guest sees it only once it has VirtIO drivers`,
      );
      bus = 'scsi';
    }
    const index = next[bus]++;
    if (index >= BUS_LIMITS[bus]) {
      problems.push(`${disk.label}: more than ${BUS_LIMITS[bus]} disks on the ${bus} bus`);
      continue;
    }
    disks.push({
      slot: `${bus}${index}`,
      source: disk.label,
      fileName: disk.fileName,
      capacityBytes: disk.capacityBytes,
    });
  }
  return { disks, problems };
}

import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { parsePropertyString } from '../../src/proxmox/property-string';
import type { Cluster, SimVm } from './cluster';
import { simulateCopy } from './copy-log';
import { formatBytes } from './format-bytes';
import { qemuRuntime } from './qemu/runtime';
import { convertImage, imageInfo, type ImageFormat } from './qemu-img';
import type { Volume } from './storage';
import type { TaskContext } from './tasks';
import { DISK_KEY, UNUSED_KEY, volumeOf } from './vm-config';
import { isCdromDrive } from './vm-drives';
import { copyVolumeFile } from './volume-snapshots';

/**
 * Migration of a VM to another node of the cluster, as qemu-server's QemuMigrate does it inside the
 * `qmigrate` task: every volume the VM references (disks, unused, snapshots, pending, saved states) is
 * scanned; a volume on shared storage stays, a local one is copied to the target node (storage_migrate;
 * with a storage map, to another storage) and then removed here; the config moves with `lock: migrate`
 * meanwhile. Log lines carry AbstractMigrate's timestamp prefix. A running simulated VM migrates "live":
 * its local disks need `with-local-disks`, and it keeps running on the target. A VM under real QEMU keeps
 * its one process (every node is this host): it can move only when all its disks are shared.
 */
export interface VolumeRef {
  volid: string;
  /** The drive key that refers to it in the current config, if any. */
  drivename?: string;
  cdrom: boolean;
  isCloudinit: boolean;
  isUnused: boolean;
  isAttached: boolean;
  isVmstate: boolean;
  isTpmstate: boolean;
  inPending: boolean;
  snapshots: string[];
  size?: number;
}

/** qemu-server's foreach_volid: each volume the config, its pending section and its snapshots name. */
export function volumeRefs(vm: SimVm): VolumeRef[] {
  const refs = new Map<string, VolumeRef>();
  const visit = (config: Record<string, string>, where: { snapshot?: string; pending?: boolean }) => {
    for (const [key, value] of Object.entries(config)) {
      if (!DISK_KEY.test(key) && !UNUSED_KEY.test(key) && key !== 'vmstate') continue;
      const volid = key === 'vmstate' || UNUSED_KEY.test(key) ? value : volumeOf(value);
      if (!volid) continue;
      const ref = refs.get(volid) ?? {
        volid,
        cdrom: true,
        isCloudinit: false,
        isUnused: false,
        isAttached: false,
        isVmstate: false,
        isTpmstate: false,
        inPending: false,
        snapshots: [],
      };
      const cdrom = DISK_KEY.test(key) && isCdromDrive(value);
      if (!cdrom) ref.cdrom = false;
      if (/(^|[:/])vm-\d+-cloudinit/.test(volid)) ref.isCloudinit = true;
      if (UNUSED_KEY.test(key)) ref.isUnused = true;
      else if (!where.snapshot && !where.pending) ref.isAttached = true;
      if (where.snapshot) ref.snapshots.push(where.snapshot);
      if (where.pending) ref.inPending = true;
      if (key === 'vmstate') ref.isVmstate = true;
      if (key === 'tpmstate0') ref.isTpmstate = true;
      if (DISK_KEY.test(key)) {
        ref.drivename = key;
        const size = parsePropertyString(value, 'file').size;
        if (size && ref.size === undefined) ref.size = sizeBytes(size);
      }
      refs.set(volid, ref);
    }
  };
  visit(vm.config, {});
  visit(vm.pending, { pending: true });
  for (const [name, snap] of vm.snapshots) visit(snap, { snapshot: name });
  return [...refs.values()];
}

const sizeBytes = (size: string) => {
  const m = /^(\d+(?:\.\d+)?)([KMGT]?)$/.exec(size);
  return m ? Math.round(Number(m[1]) * 1024 ** ' KMGT'.indexOf(m[2] || ' ')) : undefined;
};

export interface MigrateOptions {
  target: string;
  /** check_local_resources' findings (hostpci, usb, serial devices…): only an offline migration with `force` takes them. */
  localDevices: string[];
  force: boolean;
  online: boolean;
  withLocalDisks: boolean;
  /** parse_idmap of `targetstorage`: a default target, per-storage entries, or identity. */
  storageMap?: { default?: string; entries: Record<string, string>; identity?: boolean };
}

interface LocalVolume {
  ref: VolumeRef;
  volume: Volume;
  targetStorage: string;
  kind: 'attached' | 'unused' | 'snapshot' | 'pending' | 'generated';
}

const stamp = () => {
  const d = new Date();
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
};

function mapStorage(map: MigrateOptions['storageMap'], storage: string): string {
  if (!map || map.identity) return storage;
  return map.entries[storage] ?? map.default ?? storage;
}

/** QemuMigrate's scan_local_volumes: the local volumes to copy, or the errors that abort the migration. */
function scanLocalVolumes(
  cluster: Cluster,
  vm: SimVm,
  options: MigrateOptions,
  running: boolean,
  log: (line: string) => void,
): LocalVolume[] {
  const local: LocalVolume[] = [];
  const errors: Array<[string, string]> = [];
  for (const ref of volumeRefs(vm).sort((a, b) => a.volid.localeCompare(b.volid))) {
    const { volid } = ref;
    try {
      if (volid.startsWith('/')) throw new Error('local file/device');
      if (ref.cdrom && volid === 'cdrom') throw new Error("can't migrate local cdrom drive");
      if (ref.cdrom && volid === 'none') continue;
      const volume = cluster.storages.resolve(volid, vm.node);
      const targetStorage = volume.storage.shared
        ? volume.storage.id
        : mapStorage(options.storageMap, volume.storage.id);
      const target = cluster.storages.require(targetStorage);
      if (volume.storage.shared) continue;
      if (!target.content.includes(volume.vtype))
        throw new Error(`content type '${volume.vtype}' is not available on storage '${targetStorage}'`);
      const kind: LocalVolume['kind'] =
        ref.isTpmstate || ref.isCloudinit
          ? 'generated'
          : ref.isAttached
            ? 'attached'
            : ref.isUnused
              ? 'unused'
              : ref.snapshots.length > 0
                ? 'snapshot'
                : 'pending';
      if (ref.cdrom && !ref.isCloudinit) throw new Error('local cdrom image');
      if (volume.vmid !== vm.vmid) throw new Error(`owned by other VM (owner = VM ${volume.vmid})`);
      if (ref.snapshots.length > 0 && !ref.isVmstate) {
        if (running) throw new Error('online storage migration not possible if non-replicated snapshot exists');
        if (volume.format !== 'qcow2') throw new Error('non-migratable snapshot exists');
      }
      if (volume.base) throw new Error(`can't migrate '${volid}' as it's a clone of '${volume.base.name}'`);
      local.push({ ref, volume, targetStorage, kind });
    } catch (err) {
      errors.push([volid, err instanceof Error ? err.message : String(err)]);
    }
  }
  for (const { ref, kind } of local) {
    if (kind === 'attached' && running && !options.withLocalDisks)
      errors.push([ref.volid, "can't live migrate attached local disks without with-local-disks option"]);
    const what = {
      attached: ' (attached)',
      unused: ' (unused)',
      snapshot: ' (referenced by snapshot(s))',
      pending: ' (pending change)',
      generated: '',
    }[kind];
    log(
      kind === 'generated'
        ? `found generated disk '${ref.volid}' (in current VM config)`
        : `found local disk '${ref.volid}'${what}`,
    );
  }
  for (const [volid, message] of errors.sort(([a], [b]) => a.localeCompare(b)))
    log(`can't migrate local disk '${volid}': ${message}`);
  if (errors.length > 0) throw new Error("Problem found while scanning volumes - can't migrate VM - check log");
  return local;
}

/** storage_migrate: the volume on the target node (same name if free there), with its snapshots. */
async function copyVolume(
  cluster: Cluster,
  vm: SimVm,
  local: LocalVolume,
  target: string,
  task: TaskContext,
): Promise<Volume> {
  const { volume } = local;
  const storage = cluster.storages.require(local.targetStorage);
  const sameName =
    storage.type === volume.storage.type
      ? cluster.storages.resolve(`${storage.id}:${volume.volname}`, target)
      : undefined;
  const copy =
    sameName && !existsSync(sameName.file)
      ? sameName
      : cluster.storages.allocateName(
          storage,
          target,
          vm.vmid,
          storage.type === 'lvmthin' ? 'raw' : (volume.format as ImageFormat),
        );
  mkdirSync(path.dirname(copy.file), { recursive: true });
  const bytes = (await imageInfo(volume.file, undefined, true)).virtualSize;
  await simulateCopy(task, cluster.settings.importTaskMs, bytes);
  // A qcow2 file keeps its internal snapshots in the copy (thin volumes with snapshots never get here).
  if (copy.format === volume.format) await copyVolumeFile(volume.file, copy.file);
  else await convertImage(volume.file, copy.file, copy.format as ImageFormat, volume.format);
  return copy;
}

/** Rewrites every reference to a moved volume (config, pending, snapshots). */
function renameVolume(vm: SimVm, from: string, to: string): void {
  for (const config of [vm.config, vm.pending, ...vm.snapshots.values()]) {
    for (const [key, value] of Object.entries(config)) {
      if (key === 'vmstate' || UNUSED_KEY.test(key)) {
        if (value === from) config[key] = to;
      } else if (DISK_KEY.test(key) && volumeOf(value) === from) config[key] = value.replace(/^[^,]+/, to);
    }
  }
}

/** QemuMigrate->migrate, for a target node of this cluster. */
export async function migrateVm(
  cluster: Cluster,
  vm: SimVm,
  options: MigrateOptions,
  task: TaskContext,
): Promise<void> {
  const log = (line: string) => task.log(`${stamp()} ${line}`);
  const started = Date.now();
  const running = vm.status === 'running' && options.online;
  try {
    log(`starting migration of VM ${vm.vmid} to node '${options.target}' (${cluster.hardware(options.target).ip})`);
    if (options.localDevices.length > 0) {
      if (running || !options.force)
        throw new Error(`can't migrate VM which uses local devices: ${options.localDevices.join(', ')}`);
      log('migrating VM which uses local devices');
    }
    const local = scanLocalVolumes(cluster, vm, options, running, log);
    if (running && qemuRuntime(cluster)?.isRunning(vm.vmid) && local.length > 0) {
      throw new Error('live migration of local disks of a VM under real QEMU is not simulated');
    }
    await vm.flock.run(cluster.settings.flockTimeoutMs, async () => {
      cluster.checkLock(vm);
      vm.config.lock = 'migrate';
    });
    const moved: Array<[Volume, Volume]> = [];
    try {
      if (local.length > 0) log(running ? 'starting storage migration' : 'copying local disk images');
      for (const volume of local) {
        const copy = await copyVolume(cluster, vm, volume, options.target, task);
        moved.push([volume.volume, copy]);
        log(`volume '${volume.ref.volid}' is '${copy.volid}' on the target`);
      }
      if (running) {
        log(`starting online/live migration on unix:/run/qemu-server/${vm.vmid}.migrate`);
        await task.sleep(cluster.settings.taskMs);
        log(`average migration speed: ${formatBytes(1024 ** 3)}/s - downtime 20 ms`);
        log('migration status: completed');
      }
    } catch (err) {
      for (const [, copy] of moved) cluster.storages.remove(copy);
      delete vm.config.lock;
      throw err;
    }
    for (const [source, copy] of moved) {
      renameVolume(vm, source.volid, copy.volid);
      cluster.storages.remove(source);
    }
    vm.node = options.target;
    delete vm.config.lock;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    log(`ERROR: migration aborted (duration ${duration(started)}): ${message}`);
    throw new Error('migration aborted');
  }
  log(`migration finished successfully (duration ${duration(started)})`);
}

function duration(startedMs: number): string {
  const s = Math.floor((Date.now() - startedMs) / 1000);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${pad(Math.floor(s / 3600))}:${pad(Math.floor(s / 60) % 60)}:${pad(s % 60)}`;
}

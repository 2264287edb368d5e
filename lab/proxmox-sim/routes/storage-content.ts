import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fail, paramError } from '../api-error';
import type { Cluster } from '../cluster';
import { createImage, imageInfo, type ImageFormat } from '../qemu-img';
import { loadSubset } from '../schema/subset';
import type { Volume } from '../storage';
import { importMetadata } from '../storage-upload/ovf';
import { PNG, RRD_SETUP } from './rrd';
import { configEntry, storageCfgDigest, storageStatus } from './storage';
import { startTask, type RouteTable, type SimRequest } from './types';

/**
 * A storage's volumes one by one (pve-storage's API2/Storage/Content.pm, Status.pm, PruneBackups.pm,
 * FileRestore.pm, Config.pm read): a volume's path, size and format (file_size_info: `raw` for ISOs
 * and templates, qemu-img's format for images), its notes and protection (backups only), allocating
 * an image, deleting a volume in an `imgdel` task, the storage's index, its RRD series, the import
 * metadata of an OVA/OVF, and the dry run of a prune. File-restore needs a Proxmox Backup Server
 * storage, which the simulator has none of: it answers PVE's error for any other storage.
 */

/** $real_volume_id: a volume name with the storage given apart, or a full volume ID of that storage. */
export function realVolumeId(storage: string | undefined, volume: string): { volid: string; storeid: string } {
  if (volume.includes(':')) {
    const sid = volume.slice(0, volume.indexOf(':'));
    if (storage && sid !== storage) throw paramError({ volume: `storage ID mismatch (${sid} != ${storage})` });
    return { volid: volume, storeid: sid };
  }
  if (!storage) throw paramError({ volume: 'no storage specified - incomplete volume ID' });
  return { volid: `${storage}:${volume}`, storeid: storage };
}

/** PVE's path of a volume: an LV's device for a thin pool, the file for a file storage. */
const volumePath = (v: Volume) => (v.storage.type === 'lvmthin' ? `/dev/pve/${v.volname}` : v.file);

/** volume_size_info: images probed by qemu-img in their format; other files read as raw. */
async function sizeInfo(v: Volume): Promise<{ size: number; used: number; format: string }> {
  if (!existsSync(v.file)) throw fail(`failed to stat '${volumePath(v)}'`);
  const st = statSync(v.file);
  if (v.vtype !== 'images' && !(v.vtype === 'import' && ['raw', 'qcow2', 'vmdk'].includes(v.format)))
    return { size: st.size, used: st.blocks * 512, format: 'raw' };
  const info = await imageInfo(v.file, v.format === 'iso' ? 'raw' : v.format, true);
  return { size: info.virtualSize, used: st.blocks * 512, format: info.format };
}

function volumeOf(req: SimRequest): Volume {
  const { cluster, params } = req;
  cluster.requireNode(params.node!);
  const { volid, storeid } = realVolumeId(params.storage, params.volume!);
  cluster.storages.require(storeid);
  return cluster.storages.resolve(volid, params.node!);
}

/** The protection marker of a backup (PVE::Storage::protection_file_path). */
const protectionFile = (file: string) => file.replace(/\.(?:tgz|(?:tar|vma)(?:\.(?:gz|lzo|zst|bz2))?)$/, '.protected');

/** The children of a path in this version's schema (a directory index's subdirs). */
export function schemaChildren(cluster: Cluster, parent: string): string[] {
  const subset = loadSubset(cluster.flavour);
  const paths = [...Object.keys(subset.endpoints), ...subset.unsimulated.map((r) => r.split(' ')[1]!)];
  const prefix = `${parent}/`;
  return [
    ...new Set(paths.filter((p) => p.startsWith(prefix)).map((p) => p.slice(prefix.length).split('/')[0]!)),
  ].sort();
}

async function allocate(req: SimRequest): Promise<string> {
  const { cluster, params } = req;
  cluster.requireNode(params.node!);
  const spec = cluster.storages.require(params.storage!);
  const sizeText = params.size!;
  const m = /^(\d+)([MG]?)$/.exec(sizeText);
  if (!m) throw paramError({ size: `unable to parse size '${sizeText}'` });
  const kib = Number(m[1]) * (m[2] === 'G' ? 1024 * 1024 : m[2] === 'M' ? 1024 : 1);
  let format = params.format as ImageFormat | undefined;
  let name = params.filename!;
  const ext = /\.(raw|qcow2|vmdk)$/.exec(name);
  if (ext) {
    if (format && format !== ext[1]) throw paramError({ format: `different storage formats (${format} != ${ext[1]})` });
    format = ext[1] as ImageFormat;
    name = name.slice(0, -ext[0].length);
  }
  const vmid = Number(params.vmid);
  if (!name.startsWith(`vm-${vmid}-`)) throw fail(`illegal name '${params.filename}' - should be 'vm-${vmid}-*'`);
  format ??= cluster.storages.defaultFormat();
  if (!cluster.storages.supportsFormat(spec, format)) throw fail(`unsupported format '${format}'`);
  const volid = spec.type === 'lvmthin' ? `${spec.id}:${name}` : `${spec.id}:${vmid}/${name}.${format}`;
  const volume = cluster.storages.resolve(volid, params.node!);
  if (existsSync(volume.file)) throw fail(`disk image '${volumePath(volume)}' already exists`);
  mkdirSync(path.dirname(volume.file), { recursive: true });
  await createImage(volume.file, format, kib * 1024);
  return volid;
}

export const storageContentRoutes: RouteTable = {
  /** Config.pm read ($api_storage_config): storage.cfg's entry with its id and the file's digest. */
  'GET /storage/{storage}': ({ cluster, params }) => {
    const s = cluster.storages.require(params.storage!);
    return { ...configEntry(s), digest: storageCfgDigest(cluster) };
  },

  'GET /nodes/{node}/storage/{storage}': ({ cluster, params }) => {
    cluster.requireNode(params.node!);
    cluster.storages.require(params.storage!);
    return schemaChildren(cluster, '/nodes/{node}/storage/{storage}').map((subdir) => ({ subdir }));
  },

  'POST /nodes/{node}/storage/{storage}/content': allocate,

  'GET /nodes/{node}/storage/{storage}/content/{volume}': async (req) => {
    const v = volumeOf(req);
    const { size, used, format } = await sizeInfo(v);
    if (!size) throw fail(`volume '${v.volid}' has size zero`);
    const entry: Record<string, unknown> = { path: volumePath(v), size, used, format };
    if (v.vtype === 'backup') {
      if (existsSync(`${v.file}.notes`)) entry.notes = readFileSync(`${v.file}.notes`, 'utf8');
      entry.protected = existsSync(protectionFile(v.file)) ? 1 : 0;
    }
    return entry;
  },

  'PUT /nodes/{node}/storage/{storage}/content/{volume}': (req) => {
    const v = volumeOf(req);
    const { params } = req;
    if (params.notes !== undefined) {
      if (v.vtype !== 'backup') throw fail('only backups can have notes');
      if (params.notes) writeFileSync(`${v.file}.notes`, params.notes);
      else rmSync(`${v.file}.notes`, { force: true });
    }
    if (params.protected !== undefined) {
      if (v.vtype !== 'backup') throw fail("only backups support attribute 'protected'");
      if (params.protected === '1') writeFileSync(protectionFile(v.file), '');
      else rmSync(protectionFile(v.file), { force: true });
    }
    return null;
  },

  'DELETE /nodes/{node}/storage/{storage}/content/{volume}': async (req) => {
    const v = volumeOf(req);
    const id = `${v.vmid !== undefined ? `${v.vmid}@` : ''}${v.storage.id}`;
    const task = startTask(req, { node: req.params.node!, type: 'imgdel', id }, async (ctx) => {
      if (v.vtype === 'backup' && existsSync(protectionFile(v.file)))
        throw new Error(`cannot remove protected volume '${v.volname}' on '${v.storage.id}'`);
      if (!existsSync(v.file)) throw new Error(`unlink '${volumePath(v)}' failed - No such file or directory`);
      req.cluster.storages.remove(v);
      rmSync(`${v.file}.notes`, { force: true });
      ctx.log(`Removed volume '${v.volid}'`);
    });
    const delay = req.params.delay;
    if (delay === undefined) return task.upid;
    const ended = await Promise.race([
      task.done.then(() => true),
      new Promise<false>((r) => setTimeout(() => r(false), Number(delay) * 1000)),
    ]);
    if (!ended) return task.upid;
    if (task.exitstatus === 'OK' || task.exitstatus?.startsWith('WARNINGS')) return null;
    throw fail(task.exitstatus ?? 'unknown error');
  },

  'GET /nodes/{node}/storage/{storage}/prunebackups': ({ cluster, params }) => {
    const spec = cluster.storages.require(params.storage!);
    if (!spec.content.includes('backup')) throw fail(`storage '${spec.id}' does not support backups`);
    if (params['prune-backups'] === undefined)
      throw fail(`no prune-backups options configured for storage '${spec.id}'`);
    return []; // no backups: vzdump is not simulated
  },

  'GET /nodes/{node}/storage/{storage}/file-restore/list': fileRestore,
  'GET /nodes/{node}/storage/{storage}/file-restore/download': fileRestore,

  'GET /nodes/{node}/storage/{storage}/rrd': ({ cluster, params }) => {
    cluster.storages.require(params.storage!);
    const dir = path.join(tmpdir(), 'ferry-sim-rrd');
    mkdirSync(dir, { recursive: true });
    const filename = path.join(dir, `rrd-${params.node}-${params.storage}-${params.ds!.replace(/[^\w-]+/g, '_')}.png`);
    writeFileSync(filename, PNG);
    return { filename };
  },

  /** The storage's `total` and `used` at each flavour's resolution (pve2-storage, pve-storage-9.0). */
  'GET /nodes/{node}/storage/{storage}/rrddata': ({ cluster, params }) => {
    const spec = cluster.storages.require(params.storage!);
    const [step, count] = RRD_SETUP[cluster.flavour][params.timeframe!]!;
    const end = step * Math.floor(Date.now() / 1000 / step);
    const status = storageStatus(cluster, spec, params.node!);
    return Array.from({ length: count }, (_, i) => ({
      time: end - (count - i) * step,
      total: status.total,
      used: status.used,
    }));
  },

  'GET /nodes/{node}/storage/{storage}/import-metadata': async (req) => {
    const v = volumeOf(req);
    if (v.storage.type === 'lvmthin') throw fail('storage does not support the importer API');
    return importMetadata(v);
  },
};

/** FileRestore.pm: the volume must be a backup, and the storage a Proxmox Backup Server one. */
function fileRestore(req: SimRequest): never {
  volumeOf(req);
  const volid = realVolumeId(req.params.storage, req.params.volume!).volid;
  if (!/^[^:]+:backup\//.test(volid)) throw fail(`unable to use volume ${volid} - content type needs to be 'backup'`);
  throw paramError({ storage: 'Only PBS storages supported for file-restore.' });
}

import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { fail } from './api-error';
import { imageInfo, type ImageFormat } from './qemu-img';

/**
 * Simulated storages, each a real folder. `dir` and `nfs` storages keep VM disks as
 * `images/<vmid>/vm-<vmid>-disk-<n>.<fmt>` (volume `STORE:<vmid>/vm-…`), ISOs in `template/iso/` and
 * importable images in `import/`; `lvmthin` keeps raw volumes `vm-<vmid>-disk-<n>` in its folder. A
 * storage that is not shared has one folder per node, as a node-local disk would.
 */
export type StorageType = 'dir' | 'nfs' | 'lvmthin';

export interface StorageSpec {
  id: string;
  type: StorageType;
  content: string[];
  shared?: boolean;
  /** Folder of a shared storage, or the base folder under which each node gets `<node>/`. */
  path: string;
  /**
   * The storage's size, as a thin pool or a quota has one: total is this, used the bytes its files
   * take on disk, avail the rest. A number for every node, or one per node (a node not listed: the
   * folder's file system). Without it the storage reports the file system its folder is on.
   */
  quotaBytes?: number | Record<string, number>;
}

export interface Volume {
  volid: string;
  storage: StorageSpec;
  file: string;
  format: ImageFormat | 'iso' | 'ova' | 'ovf' | 'raw';
  /** Owner VMID for disk images (and a backup's guest). */
  vmid?: number;
  vtype: 'images' | 'iso' | 'import' | 'vztmpl' | 'backup' | 'snippets';
  /** The volume name without the storage (`100/vm-100-disk-0.qcow2`, `vm-100-disk-0`). */
  volname?: string;
  /** A template's base volume (`base-<vmid>-disk-<n>`): read-only, the source of linked clones. */
  isBase?: boolean;
  /** A linked clone on a directory storage: the base volume its qcow2 overlay is backed by. */
  base?: { vmid: number; name: string };
}

const IMAGE_FORMATS: ImageFormat[] = ['raw', 'qcow2', 'vmdk'];

export class Storages {
  private readonly byId = new Map<string, StorageSpec>();

  constructor(
    specs: StorageSpec[],
    private readonly nodes: string[],
  ) {
    for (const spec of specs) {
      this.byId.set(spec.id, spec);
      for (const node of nodes) mkdirSync(this.folder(spec, node), { recursive: true });
    }
  }

  list(): StorageSpec[] {
    return [...this.byId.values()];
  }

  get(id: string): StorageSpec | undefined {
    return this.byId.get(id);
  }

  require(id: string): StorageSpec {
    const s = this.byId.get(id);
    if (!s) throw fail(`storage '${id}' does not exist`);
    return s;
  }

  folder(spec: StorageSpec, node: string): string {
    return spec.shared ? spec.path : path.join(spec.path, node);
  }

  /** PVE's default for new disks on directory and thin storages alike. */
  defaultFormat(): ImageFormat {
    return 'raw';
  }

  supportsFormat(spec: StorageSpec, format: ImageFormat): boolean {
    return spec.type === 'lvmthin' ? format === 'raw' : IMAGE_FORMATS.includes(format);
  }

  /** Resolves a volume id to its file, or throws PVE's error. */
  resolve(volid: string, node: string): Volume {
    const m = /^([^:]+):(.+)$/.exec(volid);
    if (!m) throw fail(`unable to parse volume ID '${volid}'`);
    const storage = this.require(m[1]!);
    const rel = m[2]!;
    const base = this.folder(storage, node);
    const image = (file: string, format: ImageFormat, vmid: number, extra: Partial<Volume> = {}): Volume => ({
      volid,
      storage,
      file,
      format,
      vmid,
      vtype: 'images',
      volname: rel,
      ...extra,
    });
    let im: RegExpExecArray | null;
    if (storage.type === 'lvmthin') {
      // Disks, a template's base disks, cloud-init drives and saved VM states are thin volumes of their own.
      if ((im = /^(vm|base)-(\d+)-(?:disk-\d+|cloudinit|state-[\w-]+)$/.exec(rel))) {
        return image(path.join(base, `${rel}.raw`), 'raw', Number(im[2]), im[1] === 'base' ? { isBase: true } : {});
      }
    } else {
      const dirImage = (vmid: string, name: string, format: string) =>
        path.join(base, 'images', vmid, `${name}.${format}`);
      if ((im = /^(\d+)\/((vm|base)-\1-disk-\d+)\.(raw|qcow2|vmdk)$/.exec(rel))) {
        return image(
          dirImage(im[1]!, im[2]!, im[4]!),
          im[4] as ImageFormat,
          Number(im[1]),
          im[3] === 'base' ? { isBase: true } : {},
        );
      }
      // A linked clone (pve-storage's clone_image): `<basevmid>/<basename>/<vmid>/<name>`, a qcow2 overlay.
      if ((im = /^(\d+)\/(base-\1-disk-\d+\.(?:raw|qcow2|vmdk))\/(\d+)\/((vm|base)-\3-disk-\d+)\.(qcow2)$/.exec(rel))) {
        return image(dirImage(im[3]!, im[4]!, im[6]!), 'qcow2', Number(im[3]), {
          base: { vmid: Number(im[1]), name: im[2]! },
          ...(im[5] === 'base' ? { isBase: true } : {}),
        });
      }
      // A cloud-init drive (qemu-server allocates it for `<storage>:cloudinit`; see qemu/cloud-init.ts).
      if ((im = /^(\d+)\/(vm-\1-cloudinit)\.(raw|qcow2)$/.exec(rel)))
        return image(dirImage(im[1]!, im[2]!, im[3]!), im[3] as ImageFormat, Number(im[1]));
      // A snapshot's saved VM state (qemu-server's __snapshot_save_vmstate: raw, `.raw` on file storages).
      if ((im = /^(\d+)\/(vm-\1-state-[\w-]+)\.raw$/.exec(rel)))
        return image(dirImage(im[1]!, im[2]!, 'raw'), 'raw', Number(im[1]));
    }
    if ((im = /^iso\/([^/]+\.(?:iso|img))$/i.exec(rel))) {
      return {
        volid,
        storage,
        file: path.join(base, 'template', 'iso', im[1]!),
        format: 'iso',
        vtype: 'iso',
        volname: rel,
      };
    }
    if ((im = /^import\/([^/]+)\.(raw|qcow2|vmdk)$/.exec(rel))) {
      return {
        volid,
        storage,
        file: path.join(base, 'import', `${im[1]}.${im[2]}`),
        format: im[2] as ImageFormat,
        vtype: 'import',
        volname: rel,
      };
    }
    const other = this.resolveTemplateVolume(volid, storage, base, rel);
    if (other) return other;
    throw fail(`unable to parse ${storage.type === 'lvmthin' ? 'lvm' : 'directory'} volume name '${rel}'`);
  }

  /**
   * pve-storage's other file volumes (Plugin.pm parse_volname): container templates
   * (`vztmpl/…tar[.gz|.xz|.zst|.bz2]` in template/cache), backups (`backup/vzdump-…` in dump, the guest's
   * VMID in the name), snippets, and OVA/OVF appliances in import.
   */
  private resolveTemplateVolume(volid: string, storage: StorageSpec, base: string, rel: string): Volume | undefined {
    const file = (dir: string, name: string) => path.join(base, dir, name);
    let m: RegExpExecArray | null;
    if ((m = /^vztmpl\/([^/]+\.(?:tar|tar\.(?:gz|xz|zst|bz2)))$/i.exec(rel)))
      return { volid, storage, file: file('template/cache', m[1]!), format: 'raw', vtype: 'vztmpl', volname: rel };
    if ((m = /^backup\/([^/]+\.(?:tgz|(?:tar|vma)(?:\.(?:gz|lzo|zst|bz2))?))$/.exec(rel))) {
      const owner = /-(\d{3,9})-/.exec(m[1]!)?.[1];
      return {
        volid,
        storage,
        file: file('dump', m[1]!),
        format: 'raw',
        vtype: 'backup',
        volname: rel,
        ...(owner ? { vmid: Number(owner) } : {}),
      };
    }
    if ((m = /^snippets\/([^/]+)$/.exec(rel)))
      return { volid, storage, file: file('snippets', m[1]!), format: 'raw', vtype: 'snippets', volname: rel };
    if ((m = /^import\/([A-Za-z0-9\-.+=_]+\.(ova|ovf))$/.exec(rel)))
      return { volid, storage, file: file('import', m[1]!), format: m[2] as 'ova', vtype: 'import', volname: rel };
    return undefined;
  }

  exists(volume: Volume): boolean {
    return existsSync(volume.file);
  }

  /**
   * A new, unused volume name for a VM disk on a storage (pve-storage's find_free_diskname: a number a
   * `vm-` or a template's `base-` disk of the VM holds, in any format, is taken).
   */
  allocateName(spec: StorageSpec, node: string, vmid: number, format: ImageFormat): Volume {
    const taken = this.diskNumbers(spec, node, vmid);
    for (let n = 0; ; n++) {
      if (taken.has(n)) continue;
      const volume = this.resolve(
        spec.type === 'lvmthin'
          ? `${spec.id}:vm-${vmid}-disk-${n}`
          : `${spec.id}:${vmid}/vm-${vmid}-disk-${n}.${format}`,
        node,
      );
      mkdirSync(path.dirname(volume.file), { recursive: true });
      return volume;
    }
  }

  /** The disk numbers a VM's volumes use on a storage (`vm-` and `base-` alike). */
  private diskNumbers(spec: StorageSpec, node: string, vmid: number): Set<number> {
    const base = this.folder(spec, node);
    const dir = spec.type === 'lvmthin' ? base : path.join(base, 'images', String(vmid));
    const numbers = new Set<number>();
    const pattern = new RegExp(`^(?:vm|base)-${vmid}-disk-(\\d+)(?:\\.(?:raw|qcow2|vmdk))?$`);
    for (const f of existsSync(dir) ? readdirSync(dir) : []) {
      const m = pattern.exec(f);
      if (m) numbers.add(Number(m[1]));
    }
    return numbers;
  }

  /** Removes a volume; a thin volume's snapshots go with it (lvremove of the LV and its snapshots). */
  remove(volume: Volume): void {
    rmSync(volume.file, { force: true });
    if (volume.storage.type === 'lvmthin' && volume.volname) {
      const dir = path.dirname(volume.file);
      for (const f of readdirSync(dir))
        if (f.startsWith(`snap_${volume.volname}_`)) rmSync(path.join(dir, f), { force: true });
    }
  }

  /**
   * Content of a storage on a node, as `GET …/storage/{storage}/content` lists it (pve-storage's
   * list_volumes): files by content type (volid, format, size, ctime; a backup's vmid, subtype, notes and
   * protection), then the images with qemu-img's figures (vmid, used, and `parent`, which list_images
   * sets even when a volume has none: null).
   */
  async content(
    spec: StorageSpec,
    node: string,
    filter: { content?: string; vmid?: number },
  ): Promise<Array<Record<string, unknown>>> {
    const base = this.folder(spec, node);
    const rows: Array<Record<string, unknown>> = [];
    const want = (type: string) => spec.content.includes(type) && (!filter.content || filter.content === type);
    for (const [type, dir, pattern] of FILE_CONTENT) {
      if (!want(type) || (filter.vmid !== undefined && type !== 'backup')) continue;
      for (const f of filesIn(path.join(base, dir))) {
        const m = pattern.exec(f);
        if (!m) continue;
        const st = statSync(path.join(base, dir, f));
        rows.push({
          ...fileRow(spec.id, type, f, m, path.join(base, dir, f)),
          size: st.size,
          ctime: Math.floor(st.ctimeMs / 1000),
          content: type,
        });
      }
    }
    if (want('images')) rows.push(...(await this.images(spec, base, filter.vmid)));
    return rows.filter((r) => filter.vmid === undefined || r.vmid === filter.vmid);
  }

  /** pve-storage's list_images: every `vm-`/`base-` volume (a dir linked clone listed under its base). */
  private async images(spec: StorageSpec, base: string, vmid?: number): Promise<Array<Record<string, unknown>>> {
    const images: Array<{ volid: string; file: string; vmid: number; parent?: string }> = [];
    if (spec.type === 'lvmthin') {
      for (const f of filesIn(base)) {
        const m = /^((?:vm|base)-(\d+)-[^.]+)\.raw$/.exec(f);
        if (m) images.push({ volid: `${spec.id}:${m[1]}`, file: path.join(base, f), vmid: Number(m[2]) });
      }
    } else {
      const dir = path.join(base, 'images');
      for (const sub of existsSync(dir) ? readdirSync(dir) : []) {
        for (const f of filesIn(path.join(dir, sub))) {
          if (!/^(vm|base)-\d+-\S+\.(raw|qcow2|vmdk)$/.test(f)) continue;
          const file = path.join(dir, sub, f);
          const backingFile = f.endsWith('.qcow2') ? (await imageInfo(file, undefined, true)).backingFile : undefined;
          const backing = /^\.\.\/(\d+)\/(base-\1-disk-\d+\.(?:raw|qcow2|vmdk))$/.exec(backingFile ?? '');
          images.push({
            volid: backing ? `${spec.id}:${backing[1]}/${backing[2]}/${sub}/${f}` : `${spec.id}:${sub}/${f}`,
            file,
            vmid: Number(sub),
            parent: backingFile,
          });
        }
      }
    }
    const rows: Array<Record<string, unknown>> = [];
    for (const image of images) {
      if (vmid !== undefined && image.vmid !== vmid) continue;
      const info = await imageInfo(image.file, undefined, true);
      const st = statSync(image.file);
      rows.push({
        volid: image.volid,
        format: info.format,
        size: info.virtualSize,
        vmid: image.vmid,
        used: st.blocks * 512,
        ...(spec.type === 'lvmthin' ? {} : { parent: image.parent ?? null }),
        ctime: Math.floor(st.ctimeMs / 1000),
        content: 'images',
      });
    }
    return rows;
  }
}

const filesIn = (dir: string) =>
  existsSync(dir)
    ? readdirSync(dir)
        .filter((f) => statSync(path.join(dir, f)).isFile())
        .sort()
    : [];

/** pve-storage's get_subdir_files: each file content type, its folder and the names it takes. */
const FILE_CONTENT: Array<[string, string, RegExp]> = [
  ['iso', 'template/iso', /^([^/]+\.(?:iso|img))$/i],
  ['vztmpl', 'template/cache', /^([^/]+\.(?:(tar)(?!\.)|tar\.(gz|xz|zst|bz2)))$/i],
  ['backup', 'dump', /^([^/]+\.(tgz|(?:tar|vma)(?:\.(?:gz|lzo|zst|bz2))?))$/],
  ['snippets', 'snippets', /^(.+)$/],
  ['import', 'import', /^([A-Za-z0-9\-.+=_]+\.(ova|ovf|qcow2|raw|vmdk))$/i],
];

function fileRow(sid: string, type: string, name: string, m: RegExpExecArray, file: string): Record<string, unknown> {
  switch (type) {
    case 'iso':
      return { volid: `${sid}:iso/${name}`, format: 'iso' };
    case 'vztmpl':
      return { volid: `${sid}:vztmpl/${name}`, format: m[2] === 'tar' ? 'tar' : `t${m[3]}` };
    case 'backup': {
      const vmid = /-([1-9][0-9]{2,8})-[^/]+$/.exec(name)?.[1];
      const subtype = /^vzdump-(qemu|lxc|openvz)-/.exec(name)?.[1] ?? 'unknown';
      const notes = existsSync(`${file}.notes`) ? readFileSync(`${file}.notes`, 'utf8').split('\n')[0] : undefined;
      return {
        volid: `${sid}:backup/${name}`,
        format: m[2],
        subtype,
        ...(vmid ? { vmid: Number(vmid) } : {}),
        ...(notes !== undefined ? { notes } : {}),
        ...(existsSync(file.replace(/\.[^.]+(\.[^.]+)?$/, '.protected')) ? { protected: 1 } : {}),
      };
    }
    case 'snippets':
      return { volid: `${sid}:snippets/${name}`, format: 'snippet' };
    default:
      return { volid: `${sid}:import/${name}`, format: m[2]!.toLowerCase() };
  }
}

import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
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
  format: ImageFormat | 'iso';
  /** Owner VMID for disk images. */
  vmid?: number;
  vtype: 'images' | 'iso' | 'import';
}

const IMAGE_FORMATS: ImageFormat[] = ['raw', 'qcow2', 'vmdk'];

export class Storages {
  private readonly byId = new Map<string, StorageSpec>();

  constructor(specs: StorageSpec[], private readonly nodes: string[]) {
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
    let volume: Volume;
    let im: RegExpExecArray | null;
    if ((im = /^(\d+)\/(vm-\1-disk-\d+)\.(raw|qcow2|vmdk)$/.exec(rel)) && storage.type !== 'lvmthin') {
      volume = { volid, storage, file: path.join(base, 'images', im[1]!, `${im[2]}.${im[3]}`), format: im[3] as ImageFormat, vmid: Number(im[1]), vtype: 'images' };
    } else if ((im = /^vm-(\d+)-disk-\d+$/.exec(rel)) && storage.type === 'lvmthin') {
      volume = { volid, storage, file: path.join(base, `${rel}.raw`), format: 'raw', vmid: Number(im[1]), vtype: 'images' };
    } else if ((im = /^(\d+)\/(vm-\1-cloudinit)\.(raw|qcow2)$/.exec(rel)) && storage.type !== 'lvmthin') {
      // A cloud-init drive (qemu-server allocates it for `<storage>:cloudinit`; see qemu/cloud-init.ts).
      volume = { volid, storage, file: path.join(base, 'images', im[1]!, `${im[2]}.${im[3]}`), format: im[3] as ImageFormat, vmid: Number(im[1]), vtype: 'images' };
    } else if ((im = /^vm-(\d+)-cloudinit$/.exec(rel)) && storage.type === 'lvmthin') {
      volume = { volid, storage, file: path.join(base, `${rel}.raw`), format: 'raw', vmid: Number(im[1]), vtype: 'images' };
    } else if ((im = /^iso\/([^/]+\.(?:iso|img))$/i.exec(rel))) {
      volume = { volid, storage, file: path.join(base, 'template', 'iso', im[1]!), format: 'iso', vtype: 'iso' };
    } else if ((im = /^import\/([^/]+)\.(raw|qcow2|vmdk)$/.exec(rel))) {
      volume = { volid, storage, file: path.join(base, 'import', `${im[1]}.${im[2]}`), format: im[2] as ImageFormat, vtype: 'import' };
    } else {
      throw fail(`unable to parse directory volume name '${rel}'`);
    }
    return volume;
  }

  exists(volume: Volume): boolean {
    return existsSync(volume.file);
  }

  /** A new, unused volume name for a VM disk on a storage. */
  allocateName(spec: StorageSpec, node: string, vmid: number, format: ImageFormat): Volume {
    for (let n = 0; ; n++) {
      const volid = spec.type === 'lvmthin' ? `${spec.id}:vm-${vmid}-disk-${n}` : `${spec.id}:${vmid}/vm-${vmid}-disk-${n}.${format}`;
      const volume = this.resolve(volid, node);
      if (!existsSync(volume.file)) {
        mkdirSync(path.dirname(volume.file), { recursive: true });
        return volume;
      }
    }
  }

  remove(volume: Volume): void {
    rmSync(volume.file, { force: true });
  }

  /** Content of a storage on a node, as `GET …/storage/{storage}/content` lists it. */
  async content(spec: StorageSpec, node: string, filter: { content?: string; vmid?: number }): Promise<Array<Record<string, unknown>>> {
    const base = this.folder(spec, node);
    const rows: Array<Record<string, unknown>> = [];
    const files = (dir: string) => (existsSync(dir) ? readdirSync(dir).filter((f) => statSync(path.join(dir, f)).isFile()) : []);
    const want = (type: string) => spec.content.includes(type) && (!filter.content || filter.content === type);
    const row = (volid: string, file: string, format: string, content: string, size: number, vmid?: number) => {
      const st = statSync(file);
      rows.push({ volid, format, content, size, used: st.blocks * 512, ctime: Math.floor(st.ctimeMs / 1000), ...(vmid !== undefined ? { vmid } : {}) });
    };
    if (want('iso')) for (const f of files(path.join(base, 'template', 'iso'))) if (/\.(iso|img)$/i.test(f)) row(`${spec.id}:iso/${f}`, path.join(base, 'template', 'iso', f), 'iso', 'iso', statSync(path.join(base, 'template', 'iso', f)).size);
    if (want('import')) {
      for (const f of files(path.join(base, 'import'))) {
        const m = /\.(raw|qcow2|vmdk)$/.exec(f);
        if (m) row(`${spec.id}:import/${f}`, path.join(base, 'import', f), m[1]!, 'import', statSync(path.join(base, 'import', f)).size);
      }
    }
    if (want('images')) {
      const images: Array<{ volid: string; file: string; vmid: number }> = [];
      if (spec.type === 'lvmthin') {
        for (const f of files(base)) {
          const m = /^(vm-(\d+)-disk-\d+)\.raw$/.exec(f);
          if (m) images.push({ volid: `${spec.id}:${m[1]}`, file: path.join(base, f), vmid: Number(m[2]) });
        }
      } else {
        const dir = path.join(base, 'images');
        for (const sub of existsSync(dir) ? readdirSync(dir) : []) {
          for (const f of files(path.join(dir, sub))) images.push({ volid: `${spec.id}:${sub}/${f}`, file: path.join(dir, sub, f), vmid: Number(sub) });
        }
      }
      for (const image of images) {
        if (filter.vmid !== undefined && image.vmid !== filter.vmid) continue;
        const info = await imageInfo(image.file);
        row(image.volid, image.file, info.format, 'images', info.virtualSize, image.vmid);
      }
    }
    return rows.filter((r) => filter.vmid === undefined || r.vmid === filter.vmid);
  }
}

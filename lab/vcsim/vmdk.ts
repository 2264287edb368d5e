import { execFile } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync, writeSync, ftruncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { parseDatastorePath } from '../../src/domain/migration/disks';
import type { ManifestDisk } from './build-estate';

const run = promisify(execFile);

/** Bytes at the start of every lab disk that say which disk it is (so an import can be checked). */
export const PATTERN_BYTES = 64 * 1024;

/** The recognisable content of a lab disk: its vSphere file name, repeated. */
export function diskPattern(fileName: string): Buffer {
  const line = Buffer.from(`ferry lab disk ${fileName}\n`);
  const out = Buffer.alloc(PATTERN_BYTES);
  for (let at = 0; at < PATTERN_BYTES; at += line.length) line.copy(out, at);
  return out;
}

/**
 * VMDK descriptors as `qemu-img create -f vmdk -o subformat=monolithicFlat` writes them, one per
 * capacity, with the extent file name left to fill in: vSphere's own layout on NFS (`x.vmdk` descriptor
 * + `x-flat.vmdk` raw extent).
 */
class DescriptorTemplates {
  private readonly byCapacity = new Map<number, { text: string; extent: string }>();
  private readonly dir = mkdtempSync(path.join(tmpdir(), 'ferry-vmdk-'));

  async for(capacityBytes: number): Promise<{ text: string; extent: string }> {
    let t = this.byCapacity.get(capacityBytes);
    if (!t) {
      const file = path.join(this.dir, `t${capacityBytes}.vmdk`);
      await run('qemu-img', ['create', '-q', '-f', 'vmdk', '-o', 'subformat=monolithicFlat,adapter_type=lsilogic', file, String(capacityBytes)]);
      t = { text: readFileSync(file, 'utf8'), extent: `t${capacityBytes}-flat.vmdk` };
      this.byCapacity.set(capacityBytes, t);
    }
    return t;
  }

  dispose(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * Places a real VMDK (descriptor + sparse flat extent starting with the disk's pattern) where each
 * disk's backing file name points. Disks already in place with the right size are left alone.
 */
export async function placeDisks(disks: readonly ManifestDisk[], datastoreDir: (datastore: string) => string | undefined): Promise<number> {
  const templates = new DescriptorTemplates();
  let placed = 0;
  try {
    for (const disk of disks) {
      const parsed = parseDatastorePath(disk.fileName);
      const root = parsed && datastoreDir(parsed.datastore);
      if (!parsed || !root) throw new Error(`lab disk ${disk.fileName}: no folder for its datastore`);
      const descriptor = path.join(root, parsed.path);
      const flatName = `${path.basename(descriptor, '.vmdk')}-flat.vmdk`;
      const flat = path.join(path.dirname(descriptor), flatName);
      try {
        if (statSync(flat).size === disk.capacityBytes && statSync(descriptor).size > 0) continue;
      } catch {
        // not there yet
      }
      const template = await templates.for(disk.capacityBytes);
      mkdirSync(path.dirname(descriptor), { recursive: true });
      writeFileSync(descriptor, template.text.replace(`"${template.extent}"`, `"${flatName}"`));
      const fd = openSync(flat, 'w');
      try {
        ftruncateSync(fd, disk.capacityBytes);
        writeSync(fd, diskPattern(disk.fileName), 0, PATTERN_BYTES, 0);
      } finally {
        closeSync(fd);
      }
      placed++;
    }
  } finally {
    templates.dispose();
  }
  return placed;
}

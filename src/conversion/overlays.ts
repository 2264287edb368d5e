import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type { OverlayDisk } from '../domain/conversion';
import { ConversionError } from './errors';

const run = promisify(execFile);

/**
 * A VM's overlays on a convert worker's mount of the storage: made new over the VMDKs (an overlay left
 * by an attempt that did not finish is never trusted), dropped on rollback. The backing VMDK is opened
 * read-only by every tool (qemu-img, libguestfs, QEMU), so nothing here writes a VMware file.
 */
export async function createOverlays(root: string, overlays: readonly OverlayDisk[]): Promise<void> {
  for (const o of overlays) {
    const file = path.join(root, o.file);
    const source = path.join(root, o.source);
    if (!existsSync(source))
      throw new ConversionError(
        `the VMware disk ${o.source} of ${o.slot} is not at ${source} on this worker (is the migration datastore mounted here?)`,
        'invalid',
      );
    mkdirSync(path.dirname(file), { recursive: true });
    rmSync(file, { force: true });
    try {
      await run('qemu-img', [
        'create',
        '-q',
        '-f',
        'qcow2',
        '-o',
        'cluster_size=65536',
        '-b',
        o.backing,
        '-F',
        'vmdk',
        file,
      ]);
    } catch (err) {
      throw new ConversionError(
        `qemu-img could not create the overlay ${o.file} over ${o.source}: ${((err as { stderr?: string }).stderr ?? (err as Error).message).trim()}`,
        'invalid',
        { cause: err },
      );
    }
  }
}

/**
 * The overlay files of this VM that are ferry's (backed by the VMDK it names) removed, the folder too
 * once empty; answers the overlays that are gone now (removed here, or already: PVE deletes an overlay
 * its disk moved off). A file of that name that is not ferry's overlay is left, and not listed.
 */
export async function removeOverlays(
  root: string,
  overlays: readonly OverlayDisk[],
  extraFiles: readonly string[] = [],
): Promise<string[]> {
  const removed: string[] = [];
  for (const o of overlays) {
    const file = path.join(root, o.file);
    if (existsSync(file)) {
      if ((await backingOf(file)) !== o.backing) continue; // not an overlay ferry made: leave it
      rmSync(file);
    }
    removed.push(o.file);
  }
  for (const f of extraFiles) rmSync(path.join(root, f), { force: true });
  const dirs = new Set([
    ...overlays.map((o) => path.dirname(path.join(root, o.file))),
    ...extraFiles.map((f) => path.dirname(path.join(root, f))),
  ]);
  for (const dir of dirs) {
    try {
      if (readdirSync(dir).length === 0) rmdirSync(dir);
    } catch {
      // not there
    }
  }
  return removed;
}

export async function backingOf(file: string): Promise<string | undefined> {
  try {
    const { stdout } = await run('qemu-img', ['info', '--output=json', '-U', file]);
    return (JSON.parse(stdout) as { 'backing-filename'?: string })['backing-filename'];
  } catch {
    return undefined;
  }
}

/** What identifies the VMware disks an overlay was made over: a VMDK that changed makes an old conversion stale. */
export function sourceStamp(
  root: string,
  overlays: readonly OverlayDisk[],
): Array<{ source: string; bytes: number; mtimeMs: number }> {
  return overlays.map((o) => {
    const s = statSync(path.join(root, o.source));
    return { source: o.source, bytes: s.size, mtimeMs: Math.round(s.mtimeMs) };
  });
}

/** A small JSON record beside the overlays (the finished conversion; the processes of one under way). */
export function readRecord<T>(file: string): T | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

export function writeRecord(file: string, value: unknown): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(value, null, 1)}\n`);
}

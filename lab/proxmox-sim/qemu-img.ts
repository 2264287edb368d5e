import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

/**
 * qemu-img (Debian qemu-utils, installed by scripts/setup.d/20-qemu-utils.sh): the simulator's storage
 * really creates, converts, resizes and moves image files with it, as PVE does.
 */
const run = promisify(execFile);
const QEMU_IMG = process.env.FERRY_QEMU_IMG_BIN ?? 'qemu-img';

async function qemuImg(args: string[]): Promise<string> {
  try {
    const { stdout } = await run(QEMU_IMG, args, { maxBuffer: 16 * 1024 * 1024 });
    return stdout;
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stderr?: string };
    if (e.code === 'ENOENT')
      throw new Error('qemu-img is not installed: run `npm run setup` (it installs Debian qemu-utils)');
    throw new Error(`qemu-img ${args[0]} failed: ${(e.stderr ?? e.message).trim()}`);
  }
}

export type ImageFormat = 'raw' | 'qcow2' | 'vmdk';

export async function createImage(file: string, format: ImageFormat, bytes: number): Promise<void> {
  await qemuImg(['create', '-q', '-f', format, file, String(bytes)]);
}

export async function convertImage(
  source: string,
  target: string,
  targetFormat: ImageFormat,
  sourceFormat?: string,
  options: { forceShare?: boolean; snapshot?: string } = {},
): Promise<void> {
  const args = ['convert', '-q', '-O', targetFormat];
  if (sourceFormat) args.push('-f', sourceFormat);
  if (options.forceShare) args.push('-U');
  if (options.snapshot) args.push('-l', `snapshot.name=${options.snapshot}`);
  await qemuImg([...args, source, target]);
}

export async function resizeImage(file: string, format: ImageFormat, bytes: number): Promise<void> {
  await qemuImg(['resize', '-q', '-f', format, file, String(bytes)]);
}

/** `qemu-img info` of a file, probing its format unless one is given (`forceShare`: a file a running QEMU holds open). */
export async function imageInfo(
  file: string,
  format?: string,
  forceShare = false,
): Promise<{ format: string; virtualSize: number; backingFile?: string; snapshots: string[] }> {
  const info = JSON.parse(
    await qemuImg(['info', '--output=json', ...(forceShare ? ['-U'] : []), ...(format ? ['-f', format] : []), file]),
  ) as {
    format: string;
    'virtual-size': number;
    'backing-filename'?: string;
    snapshots?: Array<{ name: string }>;
  };
  return {
    format: info.format,
    virtualSize: info['virtual-size'],
    backingFile: info['backing-filename'],
    snapshots: (info.snapshots ?? []).map((s) => s.name),
  };
}

/** A qcow2 overlay whose reads fall through to `backing` (a path relative to the overlay's folder), as pve-storage's clone_image makes. */
export async function createOverlay(file: string, backing: string, backingFormat: ImageFormat): Promise<void> {
  await qemuImg(['create', '-q', '-f', 'qcow2', '-b', backing, '-F', backingFormat, file]);
}

/** qcow2 internal snapshots (`qemu-img snapshot -c|-a|-d`), as pve-storage's dir plugin takes them. */
export async function qcow2Snapshot(file: string, action: 'create' | 'apply' | 'delete', name: string): Promise<void> {
  await qemuImg(['snapshot', `-${{ create: 'c', apply: 'a', delete: 'd' }[action]}`, name, file]);
}

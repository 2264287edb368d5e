import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * Gives a datastore's folder a file system of its own, `bytes` large (a size-limited tmpfs), so vcsim
 * reports a real, small `summary.freeSpace` for it (it reads the folder's file system). Needs root
 * (mount). Returns the unmount. Call before anything is written into the folder: the mount hides it.
 */
export async function mountSizedFolder(folder: string, bytes: number): Promise<() => Promise<void>> {
  mkdirSync(folder, { recursive: true });
  try {
    await run('mount', ['-t', 'tmpfs', '-o', `size=${bytes}`, 'tmpfs', folder]);
  } catch (err) {
    throw new Error(`cannot give ${folder} a ${bytes}-byte file system (mount -t tmpfs needs root): ${(err as Error).message}`);
  }
  return async () => {
    await run('umount', [folder]);
  };
}

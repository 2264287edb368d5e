import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from '../../src/paths';

/**
 * The worker's allocator as production starts it: `jemalloc` (bin/ferry-worker and the container preload
 * it when the host has it) or `glibc`. Returns the environment that gives a benchmark's worker the same
 * (`LD_PRELOAD` of the library bin/ferry-worker would preload).
 */
export function allocatorEnv(allocator: string): Record<string, string> {
  if (allocator !== 'jemalloc' && allocator !== 'glibc')
    throw new Error(`--allocator: jemalloc or glibc, not ${allocator}`);
  const lib = spawnSync(path.join(REPO_ROOT, 'bin', 'ferry-worker'), ['--allocator'], {
    env: { ...process.env, FERRY_ALLOCATOR: allocator },
    encoding: 'utf8',
  }).stdout.trim();
  return lib && lib !== 'glibc' ? { LD_PRELOAD: lib } : {};
}

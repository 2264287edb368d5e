import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { REPO_ROOT } from '../../../src/paths';
import { devServerAddress, uniqueName, workflowBundlePath } from '../../helpers/temporal';

const FERRY_WORKER = path.join(REPO_ROOT, 'bin', 'ferry-worker');

/** Starts the compiled worker through bin/ferry-worker; resolves with the libraries it mapped once it serves its queues. */
async function mappedLibraries(env: Record<string, string>, configFile: string): Promise<string> {
  const child = spawn(FERRY_WORKER, ['--config', configFile], {
    env: { ...process.env, FERRY_WORKFLOW_BUNDLE: workflowBundlePath(), FERRY_LOG_LEVEL: 'WARN', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    const deadline = Date.now() + 120_000;
    while (!/ferry worker: .* queues /.test(output)) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the worker did not start:\n${output}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    return readFileSync(`/proc/${child.pid}/maps`, 'utf8');
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

describe('bin/ferry-worker', () => {
  jest.setTimeout(300_000);
  const dir = mkdtempSync(path.join(tmpdir(), 'ferry-allocator-'));
  const configFile = path.join(dir, 'ferry.yaml');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  beforeAll(() => {
    writeFileSync(
      configFile,
      stringify({
        temporal: { address: devServerAddress() },
        worker: { taskQueue: uniqueName('allocator'), shutdownGraceTime: '1s' },
      }),
    );
  });
  const jemalloc = spawnSync(FERRY_WORKER, ['--allocator'], { encoding: 'utf8' }).stdout.trim();

  it('names the jemalloc it preloads (this host has Debian libjemalloc2), or glibc when told', () => {
    expect(jemalloc).toMatch(/\/libjemalloc\.so\.2$/);
    expect(existsSync(jemalloc)).toBe(true);
    expect(
      spawnSync(FERRY_WORKER, ['--allocator'], {
        env: { ...process.env, FERRY_ALLOCATOR: 'glibc' },
        encoding: 'utf8',
      }).stdout.trim(),
    ).toBe('glibc');
  });

  it('runs the compiled worker with jemalloc mapped, and without it under FERRY_ALLOCATOR=glibc', async () => {
    expect(await mappedLibraries({}, configFile)).toContain(jemalloc);
    expect(await mappedLibraries({ FERRY_ALLOCATOR: 'glibc' }, configFile)).not.toContain('libjemalloc');
  });

  it('passes a configuration error through (exit 2, naming the file)', () => {
    const run = spawnSync(FERRY_WORKER, ['--config', path.join(dir, 'missing.yaml')], { encoding: 'utf8' });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('missing.yaml: no such file');
  });
});

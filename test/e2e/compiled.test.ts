import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from '../helpers/processes';

const run = promisify(execFile);
// bin/ is plain JavaScript (it decides whether TypeScript is needed at all).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { compiledIsCurrent } = require('../../bin/compiled.js') as { compiledIsCurrent(root: string): boolean };

/** Exit code and output of a command that may fail. */
async function outcome(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(command, args, { cwd: ROOT, env: { ...process.env, ...env } });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

describe('the compiled build (npm run build → dist/)', () => {
  jest.setTimeout(300_000);
  beforeAll(async () => {
    await run('npm', ['run', 'build', '--silent'], { cwd: ROOT });
  });

  it('runs the worker as production does (node dist/worker.js), with the same refusals', async () => {
    const missing = path.join(ROOT, 'no-such-ferry.yaml');
    const compiled = await outcome(process.execPath, [path.join(ROOT, 'dist', 'worker.js'), '--config', missing]);
    expect(compiled.code).toBe(2);
    expect(compiled.stderr).toContain(`${missing}: no such file`);
    const unknown = await outcome(process.execPath, [path.join(ROOT, 'dist', 'worker.js'), '--confg', 'x']);
    expect(unknown.code).toBe(2);
  });

  it('behaves as the sources do: the same help, the same usage error and exit code', async () => {
    // Just built, so bin/ferry.js runs dist/ (and, with FERRY_FROM_SOURCE=1, the sources).
    expect(compiledIsCurrent(ROOT)).toBe(true);
    for (const args of [
      ['--help'],
      ['status', '--help'],
      ['list', '--kind', 'nope'],
      ['migrate', '--vm', 'a', '--names', 'b'],
    ]) {
      const compiled = await outcome(process.execPath, [path.join(ROOT, 'bin', 'ferry.js'), ...args], {
        FERRY_CONFIG: path.join(ROOT, 'ferry.example.yaml'),
      });
      const source = await outcome(process.execPath, [path.join(ROOT, 'bin', 'ferry.js'), ...args], {
        FERRY_CONFIG: path.join(ROOT, 'ferry.example.yaml'),
        FERRY_FROM_SOURCE: '1',
      });
      expect([args, compiled.code, compiled.stdout, compiled.stderr]).toEqual([
        args,
        source.code,
        source.stdout,
        source.stderr,
      ]);
    }
  });
});

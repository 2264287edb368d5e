import { execFileSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.join(__dirname, '..', '..');

/** Packages and folders `ferry --help` must not load: each costs 50–700 ms before the CLI says anything. */
/** Light on purpose: the CLI tells a configuration error (exit code 2) apart without the schema. */
const LIGHT = ['src/config/config-error.ts'];
const HEAVY = [
  '@temporalio/client',
  '@temporalio/worker',
  '@temporalio/proto',
  '@grpc/grpc-js',
  'zod',
  'yaml',
  'undici',
  'saxes',
  '/lab/',
  '/src/config/',
  '/src/vsphere/',
  '/src/netbox/',
];

describe('ferry --help loads only what registers the commands', () => {
  it('leaves the Temporal client, worker, lab, config schema and endpoint clients to the command that runs', () => {
    // Registers every command (as `ferry --help` does) in a fresh process, then lists what it loaded.
    const script = `require('./cli/main').buildProgram(); console.log(JSON.stringify(Object.keys(require.cache)))`;
    const loaded = JSON.parse(
      execFileSync(process.execPath, ['--require', 'tsx/cjs', '-e', script], { cwd: ROOT, encoding: 'utf8' }),
    ) as string[];
    const heavy = loaded
      .map((file) => path.relative(ROOT, file).replace(/\\/g, '/'))
      .filter((file) => !LIGHT.includes(file))
      .filter((file) =>
        HEAVY.some((h) => (h.startsWith('/') ? `/${file}`.includes(h) : file.includes(`node_modules/${h}/`))),
      );
    // A command's heavy modules are required inside its action: see cli/commands/status.ts.
    expect(heavy).toEqual([]);
    expect(loaded.some((file) => file.includes(`${path.sep}cli${path.sep}commands${path.sep}status`))).toBe(true);
  });
});

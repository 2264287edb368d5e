/**
 * The chaos suite: kill -9s of worker processes at every stage and rejoin window, Temporal dev-server
 * kill/restarts on the same database, a BIND outage and faults in every dependency over a migration
 * wave and a provisioning batch (with teardowns); then the invariant table. Exit 1 when an invariant
 * is not 0, 2 on bad flags.
 *
 *   npm run chaos -- --seed 1 --vms 50 --kills 20 --server-restarts 2 --faults 0.1 [--workers 2] [--timeout 1800] [--dump run.json]
 */
import { parseArgs } from 'node:util';
import { runChaos } from './run';

function integer(flag: string, value: string, min: number): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new UsageError(`--${flag}: expected an integer ≥ ${min}, got "${value}"`);
  return n;
}

class UsageError extends Error {}

export async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      seed: { type: 'string', default: '1' },
      vms: { type: 'string', default: '50' },
      kills: { type: 'string', default: '20' },
      'server-restarts': { type: 'string', default: '2' },
      faults: { type: 'string', default: '0.1' },
      workers: { type: 'string', default: '2' },
      timeout: { type: 'string', default: '1800' },
      dump: { type: 'string' },
    },
  });
  const faults = Number(values.faults);
  if (!(faults >= 0 && faults <= 0.5))
    throw new UsageError(`--faults: expected a rate from 0 to 0.5, got "${values.faults}"`);
  const report = await runChaos({
    seed: integer('seed', values.seed, 0),
    vms: integer('vms', values.vms, 4),
    kills: integer('kills', values.kills, 0),
    serverRestarts: integer('server-restarts', values['server-restarts'], 0),
    faults,
    workers: integer('workers', values.workers, 2),
    timeoutMs: integer('timeout', values.timeout, 30) * 1000,
    dumpFile: values.dump,
  });
  return report.ok ? 0 : 1;
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      const usage = err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
      console.error(usage ? `chaos: ${(err as Error).message}` : err);
      process.exit(usage ? 2 : 1);
    },
  );
}

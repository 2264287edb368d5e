import { Command, CommanderError } from 'commander';
import { exitCodeFor } from './errors';
import { registerDiscover } from './commands/discover';
import { registerDoctor } from './commands/doctor';
import { registerLab } from './commands/lab';
import { registerDecisions } from './commands/decide';
import { registerList } from './commands/list';
import { registerMigrate } from './commands/migrate';
import { registerPlan } from './commands/plan';
import { registerStatus } from './commands/status';
import { registerNetbox } from './commands/netbox';
import { registerProvision } from './commands/provision';
import { registerTeardown } from './commands/teardown';
import { registerCancel } from './commands/cancel';
import { registerReport } from './commands/report';
import { registerPlace } from './commands/place';
import { registerWebhook } from './commands/webhook';
import { registerApply } from './commands/apply';
import { registerDrift } from './commands/drift';

export function buildProgram(): Command {
  const program = new Command('ferry')
    .description('Proxmox VE VM lifecycle and VMware → Proxmox migration as durable Temporal workflows')
    .option('-c, --config <file>', 'ferry.yaml to use (default: $FERRY_CONFIG or ./ferry.yaml)')
    .showHelpAfterError()
    // Commander's usage errors become exceptions (subcommands inherit this), so they exit with 2 below.
    .exitOverride();
  registerLab(program);
  registerDoctor(program);
  registerDiscover(program);
  registerPlan(program);
  registerMigrate(program);
  registerProvision(program);
  registerApply(program);
  registerDrift(program);
  registerTeardown(program);
  registerDecisions(program);
  registerStatus(program);
  registerList(program);
  registerNetbox(program);
  registerWebhook(program);
  registerCancel(program);
  registerReport(program);
  registerPlace(program);
  return program;
}

export async function run(argv: string[]): Promise<void> {
  await buildProgram().parseAsync(argv);
}

/** Runs the CLI and returns its exit code (see exitCodeFor); errors are printed without a stack. */
export async function main(argv: string[]): Promise<number> {
  try {
    await run(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (err) {
    // Commander has printed its own message (and the help) already.
    if (!(err instanceof CommanderError)) console.error(err instanceof Error ? err.message : err);
    return exitCodeFor(err);
  }
}

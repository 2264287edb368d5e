import { Command } from 'commander';
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

export function buildProgram(): Command {
  const program = new Command('ferry')
    .description('Proxmox VE VM lifecycle and VMware → Proxmox migration as durable Temporal workflows')
    .option('-c, --config <file>', 'ferry.yaml to use (default: $FERRY_CONFIG or ./ferry.yaml)')
    .showHelpAfterError();
  registerLab(program);
  registerDoctor(program);
  registerDiscover(program);
  registerPlan(program);
  registerMigrate(program);
  registerProvision(program);
  registerTeardown(program);
  registerDecisions(program);
  registerStatus(program);
  registerList(program);
  registerNetbox(program);
  return program;
}

export async function run(argv: string[]): Promise<void> {
  await buildProgram().parseAsync(argv);
}

import { Command } from 'commander';
import { registerDoctor } from './commands/doctor';
import { registerLab } from './commands/lab';
import { registerNetbox } from './commands/netbox';

export function buildProgram(): Command {
  const program = new Command('ferry')
    .description('Proxmox VE VM lifecycle and VMware → Proxmox migration as durable Temporal workflows')
    .option('-c, --config <file>', 'ferry.yaml to use (default: $FERRY_CONFIG or ./ferry.yaml)')
    .showHelpAfterError();
  registerLab(program);
  registerDoctor(program);
  registerNetbox(program);
  return program;
}

export async function run(argv: string[]): Promise<void> {
  await buildProgram().parseAsync(argv);
}

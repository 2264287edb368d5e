import type { Command } from 'commander';

export interface SelectionFlags {
  names?: string;
  folder?: string;
  cluster?: string;
  tag?: string;
}

/** The VM selection flags shared by `plan` and `migrate`. */
export function selectionOptions(command: Command): Command {
  return command
    .option('--names <a,b,…>', 'VMs: names (exact), moids (vm-123) or inventory paths (/DC0/vm/apps/web01)')
    .option('--folder <path>', 'VMs in this folder, as an inventory path: /DC0/vm/apps')
    .option('--cluster <name>', 'VMs in this cluster')
    .option('--tag <tag>', 'VMs with this vSphere tag (name or category/name)');
}

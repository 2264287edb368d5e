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
    .option('--names <a,b,…>', 'VM names (exact)')
    .option('--folder <path>', 'VMs in this inventory folder, e.g. /DC0/vm/apps')
    .option('--cluster <name>', 'VMs in this cluster')
    .option('--tag <tag>', 'VMs with this vSphere tag (name or category/name)');
}

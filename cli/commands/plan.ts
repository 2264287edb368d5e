import type { Command } from 'commander';
import type { WaveSelection } from '../../activities/migration-contract';
import type { planMigration } from '../../workflows/plan-migration';
import { describeAction } from '../../src/domain/migration';
import { withClient, type GlobalOptions } from '../client';
import { selectionOptions, type SelectionFlags } from './selection';

export function registerPlan(program: Command): void {
  const command = program
    .command('plan')
    .description('dry run: read vCenter and Proxmox, change nothing, and list every action a migration would take');
  selectionOptions(command)
    .option('--json', 'print the plan as JSON')
    .action(async (flags: SelectionFlags & { json?: boolean }, cmd: Command) => {
      const selection: WaveSelection = selectionFrom(flags);
      const plan = await withClient(cmd.optsWithGlobals<GlobalOptions>(), (client, config) =>
        client.workflow.execute<typeof planMigration>('planMigration', {
          taskQueue: config.worker.taskQueue,
          workflowId: `plan-${new Date().toISOString().replace(/[:.]/g, '')}`,
          args: [selection],
          staticSummary: 'ferry plan',
        }),
      );
      if (flags.json) return void console.log(JSON.stringify(plan, null, 2));
      console.log(`Plan for vCenter ${plan.vcenter} (${plan.vms.length} VMs)\n`);
      if (plan.sdn.length) {
        console.log('Networks:');
        for (const a of plan.sdn) console.log(`  ${describeAction(a)}`);
      }
      for (const u of plan.untranslatedNetworks) console.log(`  not translated: ${u.network}: ${u.reason}`);
      for (const vm of plan.vms) {
        console.log(`\n${vm.name} (${vm.moid}${vm.vmid !== undefined ? ` → VMID ${vm.vmid}` : ''})`);
        for (const a of vm.actions) console.log(`  ${describeAction(a)}`);
        for (const n of vm.notes) console.log(`  note: ${n}`);
      }
    });
}

export function selectionFrom(flags: SelectionFlags): WaveSelection {
  const selection: WaveSelection = {};
  if (flags.names) selection.names = flags.names.split(',').map((n) => n.trim()).filter(Boolean);
  if (flags.folder) selection.folder = flags.folder;
  if (flags.cluster) selection.cluster = flags.cluster;
  if (flags.tag) selection.tag = flags.tag;
  return selection;
}

import type { Command } from 'commander';
import type { WaveSelection } from '../../activities/migration-contract';
import type { planMigration } from '../../workflows/plan-migration';
import { describeConversion } from '../../src/domain/conversion';
import { describeAction } from '../../src/domain/migration';
import { formatDuration } from '../status-view/format';
import type { GlobalOptions } from '../client';
import { placedLine, placementTotals } from './plan-placement';
import { selectionOptions, type SelectionFlags } from './selection';
import { UsageError } from '../errors';

export function registerPlan(program: Command): void {
  const command = program
    .command('plan')
    .description('dry run: read vCenter and Proxmox, change nothing, and list every action a migration would take');
  selectionOptions(command)
    .option('--json', 'print the plan as JSON')
    .option(
      '--no-inspect',
      'do not read the guests that conversion would change (libguestfs, read-only, about half a minute each under TCG)',
    )
    .option('--wait', 'when no worker polls the task queue, wait for one (else: say so and exit 1)')
    .action(async (flags: SelectionFlags & { json?: boolean; wait?: boolean; inspect?: boolean }, cmd: Command) => {
      await showPlan(selectionFrom(flags), cmd.optsWithGlobals<GlobalOptions>(), flags);
    });
}

/** Runs the plan workflow over `selection` and prints it (`ferry plan`, and `ferry migrate --dry-run`). */
export async function showPlan(
  selection: WaveSelection,
  globals: GlobalOptions,
  flags: { json?: boolean; wait?: boolean; inspect?: boolean },
): Promise<void> {
  // Loaded when the command runs, so that `ferry --help` and the other commands do not pay for it.
  const { withClient } = require('../client') as typeof import('../client');
  const { requireWorker } = require('../worker-presence') as typeof import('../worker-presence');
  const { awaitResult } = require('../workflow-result') as typeof import('../workflow-result');
  const plan = await withClient(globals, async (client, config) => {
    await requireWorker(client, config.worker.taskQueue, { wait: Boolean(flags.wait), what: 'the plan' });
    const handle = await client.workflow.start<typeof planMigration>('planMigration', {
      taskQueue: config.worker.taskQueue,
      workflowId: `plan-${new Date().toISOString().replace(/[:.]/g, '')}`,
      args: [selection, { inspect: flags.inspect !== false }],
      staticSummary: 'ferry plan',
    });
    // A refused selection (a name not found or ambiguous) says why, not "Workflow execution failed".
    return awaitResult<typeof planMigration>(handle);
  });
  if (flags.json) return void console.log(JSON.stringify(plan, null, 2));
  console.log(`Plan for vCenter ${plan.vcenter} (${plan.vms.length} VMs)\n`);
  if (plan.sdn.length) {
    console.log('Networks:');
    for (const a of plan.sdn) console.log(`  ${describeAction(a)}`);
  }
  for (const u of plan.untranslatedNetworks) console.log(`  not translated: ${u.network}: ${u.reason}`);
  for (const vm of plan.vms) {
    console.log(`\n${vm.name} (${vm.moid}${vm.vmid !== undefined ? ` → VMID ${vm.vmid}` : ''})`);
    const placed = placedLine(plan.placement, vm.moid);
    if (placed) console.log(`  ${placed}`);
    for (const a of vm.actions) console.log(`  ${describeAction(a)}`);
    // Conversion off says nothing per VM (it is the default); anything else says what it will do or why not.
    const conversion =
      vm.refusals.length === 0 && vm.conversion && (vm.conversion.convert || vm.conversion.code !== 'off')
        ? vm.conversion
        : undefined;
    if (conversion)
      for (const line of describeConversion(conversion))
        console.log(`  ${line.replace(/^ {2}warning: /, '  WARNING: ')}`);
    if (vm.expectedDowntime) {
      const modes = Object.entries(vm.expectedDowntime).map(
        ([mode, seconds]) => `${mode} ${formatDuration(seconds)}${mode === plan.cutoverMode ? ' (this config)' : ''}`,
      );
      console.log(`  expected downtime: ${modes.join(', ')}`);
    }
    for (const w of vm.warnings ?? []) console.log(`  WARNING: ${w}`);
    for (const n of vm.notes) console.log(`  note: ${n}`);
  }
  if (plan.placement) for (const line of placementTotals(plan.placement)) console.log(line);
}

/** The selection the flags give, checked as a wave file's is (names alone, a tag's form, a folder's path); a problem names its flag. */
export function selectionFrom(flags: SelectionFlags): WaveSelection {
  // Loaded when a command runs (it parses YAML with zod), so that `ferry --help` does not pay for it.
  const { selectionProblems } = require('../wave-file') as typeof import('../wave-file');
  const selection: WaveSelection = {};
  if (flags.names !== undefined)
    selection.names = flags.names
      .split(',')
      .map((n) => n.trim())
      .filter(Boolean);
  if (flags.folder !== undefined) selection.folder = flags.folder;
  if (flags.cluster !== undefined) selection.cluster = flags.cluster;
  if (flags.tag !== undefined) selection.tag = flags.tag;
  if (Object.keys(selection).length === 0) return selection; // the caller says what is missing
  const problems = selectionProblems(selection);
  if (problems.length > 0) throw new UsageError(problems.join('\n'));
  return selection;
}

import type { Command } from 'commander';
import type { Client } from '@temporalio/client';
import type { BuiltVm } from '../../activities/provisioning-contract';
import type { builtNetboxVms, netboxVm } from '../../workflows/netbox-vm';
import type { FerryConfig } from '../../src/config';
import type { Followed } from '../change-runs';
import type { GlobalOptions } from '../client';
import { changeVmWorkflowId } from '../../src/domain/change-vm';
import { UsageError } from '../errors';
import { intOption } from '../int-option';

interface ApplyFlags {
  netboxId?: number;
  cluster?: string;
  tag?: string;
  wait?: boolean;
}

/** NetBox statuses another workflow owns (as the webhook's receiver decides: src/domain/netbox-events). */
const NOT_CHANGED: Readonly<Record<string, string>> = {
  planned: 'planned: provisioning builds it (ferry provision --netbox-id N), not changeVm',
};

export function registerApply(program: Command): void {
  program
    .command('apply')
    .description(
      'day 2: make built VMs equal to their NetBox records: one changeVm per VM (started, or told to plan again when one runs)',
    )
    .option('--netbox-id <id>', 'the NetBox VM', intOption(1))
    .option('--cluster <name>', 'every VM ferry built in this NetBox cluster (with --tag: in both)')
    .option('--tag <slug>', 'every VM ferry built with this NetBox tag')
    .option(
      '--wait',
      'follow each run until it ends or waits for a person, and print each change’s outcome (waits for a worker too)',
    )
    .action(async (flags: ApplyFlags, cmd: Command) => {
      const selection = flags.cluster !== undefined || flags.tag !== undefined;
      if ((flags.netboxId !== undefined) === selection)
        throw new UsageError('say what to apply: --netbox-id N, or --cluster C and/or --tag T');
      // Loaded when the command runs, so that `ferry --help` and the other commands do not pay for it.
      const { withClient } = require('../client') as typeof import('../client');
      await withClient(cmd.optsWithGlobals<GlobalOptions>(), (client, config) => apply(client, config, flags));
    });
}

async function apply(client: Client, config: FerryConfig, flags: ApplyFlags): Promise<void> {
  const { requireWorker } = require('../worker-presence') as typeof import('../worker-presence');
  const { applyTo } = require('../change-runs') as typeof import('../change-runs');
  const taskQueue = config.worker.taskQueue;
  // The worker holds the NetBox token: it reads the records for us (so one must poll).
  await requireWorker(client, taskQueue, { wait: Boolean(flags.wait), what: 'reading NetBox' });
  const vms = await builtVms(client, taskQueue, flags);
  const at = new Date();
  const started: Array<{ vm: BuiltVm; workflowId: string }> = [];
  for (const vm of vms) {
    const skip = NOT_CHANGED[vm.status];
    if (skip) {
      console.log(`skipped: ${vm.name} (NetBox VM ${vm.netboxId}, VM ${vm.vmid}): ${skip}`);
      continue;
    }
    const runId = await applyTo(client, taskQueue, vm, at);
    const workflowId = changeVmWorkflowId(vm.vmid);
    console.log(`apply: ${vm.name} (NetBox VM ${vm.netboxId}, VM ${vm.vmid}): workflow ${workflowId} (run ${runId})`);
    started.push({ vm, workflowId });
  }
  if (flags.netboxId === undefined)
    console.log(`${started.length} VM(s) applied, ${vms.length - started.length} skipped`);
  if (!flags.wait) {
    for (const { workflowId } of started) console.log(`  watch: ferry status ${workflowId} --watch`);
    return;
  }
  const followed = await Promise.all(started.map(({ workflowId }) => follow(client, workflowId)));
  if (followed.some((f) => f.state === 'failed' || (f.state === 'ended' && failedOutcome(f.result.outcome))))
    process.exitCode = 1;
}

const failedOutcome = (outcome: string) => outcome === 'partial' || outcome === 'refused';

/** The VM the flags name, or the built VMs of the cluster/tag, read by the worker. */
async function builtVms(client: Client, taskQueue: string, flags: ApplyFlags): Promise<BuiltVm[]> {
  const { awaitResult } = require('../workflow-result') as typeof import('../workflow-result');
  const stamp = new Date().toISOString().replace(/[:.]/g, '');
  if (flags.netboxId !== undefined) {
    const netboxId = flags.netboxId;
    const lookup = await client.workflow.start<typeof netboxVm>('netboxVm', {
      taskQueue,
      workflowId: `lookup-netbox-${netboxId}-${stamp}`,
      args: [{ netboxId }],
      staticSummary: `ferry apply: read NetBox VM ${netboxId}`,
    });
    const record = await awaitResult(lookup);
    const vmid = record.fields.vmid;
    if (vmid === undefined)
      throw new Error(
        `NetBox VM "${record.name}" (id ${netboxId}) has no ferry_vmid: ferry did not build it, so there is nothing to apply (ferry provision --netbox-id ${netboxId})`,
      );
    return [{ netboxId, name: record.name, status: record.status, vmid }];
  }
  const selection = { ...(flags.cluster ? { cluster: flags.cluster } : {}), ...(flags.tag ? { tag: flags.tag } : {}) };
  const list = await client.workflow.start<typeof builtNetboxVms>('builtNetboxVms', {
    taskQueue,
    workflowId: `lookup-built-${stamp}`,
    args: [selection],
    staticSummary: `ferry apply: NetBox VMs built by ferry${flags.cluster ? ` in ${flags.cluster}` : ''}${flags.tag ? ` tagged ${flags.tag}` : ''}`,
  });
  const vms = await awaitResult(list);
  if (vms.length === 0)
    console.log(
      `no NetBox VM with a ferry_vmid${flags.cluster ? ` in cluster ${flags.cluster}` : ''}${flags.tag ? ` tagged ${flags.tag}` : ''}: nothing to apply`,
    );
  return vms;
}

/** Follows one run and prints where it stopped: its outcome per change, and what it waits for. */
async function follow(client: Client, workflowId: string): Promise<Followed> {
  const { followChange } = require('../change-runs') as typeof import('../change-runs');
  const { renderChangeStatus } = require('../render-change') as typeof import('../render-change');
  const followed = await followChange(client, workflowId, (stage) => console.log(`${workflowId}: ${stage}`));
  if (followed.state === 'waiting')
    console.log(`${workflowId}: waiting for a person\n${renderChangeStatus(followed.status).join('\n')}`);
  else if (followed.state === 'ended')
    console.log(`${workflowId}: ${followed.result.outcome}\n${renderChangeStatus(followed.result).join('\n')}`);
  else
    console.log(
      `${workflowId}: failed: ${followed.error}${followed.status ? `\n${renderChangeStatus(followed.status).join('\n')}` : ''}`,
    );
  return followed;
}

import type { Command } from 'commander';
import { coordinationQueue } from '../../src/domain/task-queues';
import type { Client } from '@temporalio/client';
import type { provisionPlanned } from '../../workflows/provision-planned';
import type { provisionVm } from '../../workflows/provision-vm';
import type { FerryConfig, WorkflowNames } from '../../src/config';
import { provisionPlannedWorkflowId, provisionWorkflowId } from '../../src/domain/provisioning/status';
import { FerryKind, VmName } from '../../src/domain/search-attributes';
import type { GlobalOptions } from '../client';
import type { readSpecFile } from '../spec-file';
import { renderStatus, statusView } from './status';
import { UsageError } from '../errors';
import { intOption } from '../int-option';

interface ProvisionFlags {
  netboxId?: number;
  spec?: string;
  planned?: boolean;
  cluster?: string;
  tag?: string;
  start?: boolean;
  maxConcurrent?: number;
  wait?: boolean;
}

export function registerProvision(program: Command): void {
  program
    .command('provision')
    .description(
      'build VMs on Proxmox: one NetBox record (--netbox-id), a spec file (--spec), or every planned record (--planned)',
    )
    .option('--netbox-id <id>', 'the NetBox VM to build (status planned)', intOption(1))
    .option('--spec <file>', 'a whole VM spec (YAML or JSON), validated before anything starts')
    .option('--planned', 'every NetBox VM in status planned (with --cluster / --tag)')
    .option('--cluster <name>', 'with --planned: only this NetBox cluster')
    .option('--tag <slug>', 'with --planned: only VMs with this NetBox tag')
    .option('--start', 'start the VMs once built (held to limits.vmStart)')
    .option(
      '--max-concurrent <n>',
      'with --planned: VM workflows at once (default: provisioning.maxConcurrent)',
      intOption(1, 500),
    )
    .option('--wait', 'wait for the end and print what was done')
    .action(async (flags: ProvisionFlags, cmd: Command) => {
      // Loaded when the command runs, so that `ferry --help` and the other commands do not pay for it.
      const { withClient } = require('../client') as typeof import('../client');
      const { readSpecFile } = require('../spec-file') as typeof import('../spec-file');
      const { awaitResult } = require('../workflow-result') as typeof import('../workflow-result');
      const { requireWorker, warnWithoutWorker } = require('../worker-presence') as typeof import('../worker-presence');
      const chosen = [flags.netboxId !== undefined, flags.spec !== undefined, Boolean(flags.planned)].filter(
        Boolean,
      ).length;
      if (chosen !== 1)
        throw new UsageError('say what to provision: exactly one of --netbox-id N, --spec FILE or --planned');
      if (!flags.planned && (flags.cluster || flags.tag || flags.maxConcurrent !== undefined))
        throw new UsageError('--cluster, --tag and --max-concurrent go with --planned');
      const spec = flags.spec ? readSpecFile(flags.spec) : undefined;
      const netboxId = flags.netboxId;
      await withClient(cmd.optsWithGlobals<GlobalOptions>(), async (client, config, names) => {
        const workflowId = flags.planned
          ? await startPlanned(client, config, flags)
          : await startOne(client, config, names, { netboxId, spec, start: flags.start });
        console.log(`  watch:   ferry status ${workflowId} --watch`);
        if (!flags.wait) return void (await warnWithoutWorker(client, config.worker.taskQueue, 'the provision'));
        await requireWorker(client, config.worker.taskQueue, { wait: true, what: 'the provision' });
        const handle = client.workflow.getHandle(workflowId);
        const result = (await awaitResult(handle)) as { vms?: Array<{ outcome?: string }> };
        console.log(renderStatus(await statusView(client, handle)));
        // A planned batch finishes even when some VMs fail: the exit code says whether all were built.
        if (result.vms?.some((vm) => vm.outcome !== 'provisioned')) process.exitCode = 1;
      });
    });
}

async function startOne(
  client: Client,
  config: FerryConfig,
  names: WorkflowNames,
  input: { netboxId?: number; spec?: ReturnType<typeof readSpecFile>; start?: boolean },
): Promise<string> {
  const workflowId = input.spec
    ? provisionWorkflowId(input.spec, names.netbox)
    : provisionWorkflowId({ netboxId: input.netboxId }, names.netbox);
  const handle = await client.workflow.start<typeof provisionVm>('provisionVm', {
    taskQueue: config.worker.taskQueue,
    workflowId,
    args: [
      {
        ...(input.spec ? { spec: input.spec } : { netboxId: input.netboxId }),
        ...(input.start ? { start: true } : {}),
      },
    ],
    // Starting twice finds the running one; a finished one is checked and finished again (a rerun writes nothing that is in place).
    workflowIdConflictPolicy: 'USE_EXISTING',
    typedSearchAttributes: [
      { key: FerryKind, value: 'provision' },
      ...(input.spec ? [{ key: VmName, value: input.spec.name }] : []),
    ],
    staticSummary: input.spec ? `provision ${input.spec.name} from a spec` : `provision NetBox VM ${input.netboxId}`,
  });
  console.log(`provision: workflow ${handle.workflowId} (run ${handle.firstExecutionRunId})`);
  return workflowId;
}

async function startPlanned(client: Client, config: FerryConfig, flags: ProvisionFlags): Promise<string> {
  const selection = { ...(flags.cluster ? { cluster: flags.cluster } : {}), ...(flags.tag ? { tag: flags.tag } : {}) };
  const workflowId = provisionPlannedWorkflowId(selection);
  const handle = await client.workflow.start<typeof provisionPlanned>('provisionPlanned', {
    // Batches run on the coordination queue; their VMs on the main queue.
    taskQueue: coordinationQueue(config.worker.taskQueue),
    workflowId,
    args: [
      {
        ...selection,
        ...(flags.start ? { start: true } : {}),
        ...(flags.maxConcurrent !== undefined ? { maxConcurrent: flags.maxConcurrent } : {}),
      },
    ],
    workflowIdConflictPolicy: 'USE_EXISTING',
    typedSearchAttributes: [{ key: FerryKind, value: 'provision-planned' }],
    staticSummary: `provision planned NetBox VMs${flags.cluster ? ` of ${flags.cluster}` : ''}${flags.tag ? ` tagged ${flags.tag}` : ''}`,
  });
  console.log(`provision planned: workflow ${handle.workflowId} (run ${handle.firstExecutionRunId})`);
  return workflowId;
}

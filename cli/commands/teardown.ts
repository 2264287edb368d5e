import type { Command } from 'commander';
import type { netboxVm } from '../../workflows/netbox-vm';
import type { teardownVm } from '../../workflows/teardown-vm';
import { teardownWorkflowId } from '../../src/domain/provisioning/teardown';
import { FerryKind, VmId } from '../../src/domain/search-attributes';
import type { GlobalOptions } from '../client';
import { renderStatus, statusView } from './status';
import { PVE_VMID_MAX, PVE_VMID_MIN } from '../../src/domain/vmid';
import { UsageError } from '../errors';
import { intOption } from '../int-option';

interface TeardownFlags {
  vmid?: number;
  netboxId?: number;
  requireApproval?: boolean;
  wait?: boolean;
}

export function registerTeardown(program: Command): void {
  program
    .command('teardown')
    .description(
      'stop and delete a VM, then remove its DNS records, address, NetBox interfaces and VM, and known_hosts entries',
    )
    .option('--vmid <n>', 'the Proxmox VMID', intOption(PVE_VMID_MIN, PVE_VMID_MAX))
    .option('--netbox-id <id>', 'the NetBox VM (its ferry_vmid names the Proxmox VM)', intOption(1))
    .option('--require-approval', 'wait for `ferry approve` whatever the record’s status')
    .option('--wait', 'wait for the end and print every cleanup')
    .action(async (flags: TeardownFlags, cmd: Command) => {
      // Loaded when the command runs, so that `ferry --help` and the other commands do not pay for it.
      const { withClient } = require('../client') as typeof import('../client');
      const { awaitResult } = require('../workflow-result') as typeof import('../workflow-result');
      const { requireWorker, warnWithoutWorker } = require('../worker-presence') as typeof import('../worker-presence');
      if ((flags.vmid === undefined) === (flags.netboxId === undefined))
        throw new UsageError('say what to tear down: exactly one of --vmid N or --netbox-id N');
      await withClient(cmd.optsWithGlobals<GlobalOptions>(), async (client, config) => {
        const taskQueue = config.worker.taskQueue;
        const netboxId = flags.netboxId;
        let vmid = flags.vmid;
        if (vmid === undefined) {
          // The worker holds the NetBox token: it reads the record for us (so one must poll).
          await requireWorker(client, taskQueue, { wait: Boolean(flags.wait), what: `reading NetBox VM ${netboxId}` });
          const lookup = await client.workflow.start<typeof netboxVm>('netboxVm', {
            taskQueue,
            workflowId: `lookup-netbox-${netboxId}-${Date.now()}`,
            args: [{ netboxId: netboxId! }],
            staticSummary: `ferry teardown: read NetBox VM ${netboxId}`,
          });
          const record = await awaitResult(lookup);
          vmid = record.fields.vmid;
          if (vmid === undefined)
            throw new Error(
              `NetBox VM "${record.name}" (id ${netboxId}) has no ferry_vmid: ferry does not know which Proxmox VM it is`,
            );
        }
        const handle = await client.workflow.start<typeof teardownVm>('teardownVm', {
          taskQueue,
          workflowId: teardownWorkflowId(vmid),
          args: [
            {
              vmid,
              ...(netboxId !== undefined ? { netboxId } : {}),
              ...(flags.requireApproval ? { requireApproval: true } : {}),
            },
          ],
          // Starting twice finds the running one; after an incomplete run, a new run finishes what was left.
          workflowIdConflictPolicy: 'USE_EXISTING',
          typedSearchAttributes: [
            { key: FerryKind, value: 'teardown' },
            { key: VmId, value: vmid },
          ],
          staticSummary: `tear down VM ${vmid}`,
        });
        console.log(`teardown: workflow ${handle.workflowId} (run ${handle.firstExecutionRunId})`);
        console.log(`  watch:   ferry status ${handle.workflowId} --watch`);
        console.log(
          `  approve: ferry approve ${handle.workflowId} --by <approver> --reason "<why>"   (when it waits for approval)`,
        );
        if (!flags.wait) return void (await warnWithoutWorker(client, taskQueue, `the teardown`));
        await requireWorker(client, taskQueue, { wait: true, what: `the teardown` });
        const result = await awaitResult(handle);
        console.log(renderStatus(await statusView(client, handle)));
        if (result.outcome !== 'torn-down') process.exitCode = 1;
      });
    });
}

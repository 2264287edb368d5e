import type { Client } from '@temporalio/client';
import { coordinationQueue } from '../src/domain/task-queues';
import type { provisionPlanned } from '../workflows/provision-planned';
import { provisionPlannedWorkflowId, type ProvisionPlannedStatus } from '../src/domain/provisioning';
import { FerryKind } from '../src/domain/search-attributes';
import { LAB_NETBOX } from './netbox-seed';
import type { LabCommands } from './sample-run';

/**
 * The provisioning part of the lab's sample run: every planned VM of the lab NetBox is built on the
 * Proxmox simulator (one `provisionVm` workflow each), gets its interface, address and DNS records,
 * and ends `staged`.
 */
export function startSampleProvisioning(client: Client, taskQueue: string) {
  return client.workflow.start<typeof provisionPlanned>('provisionPlanned', {
    taskQueue: coordinationQueue(taskQueue),
    workflowId: provisionPlannedWorkflowId({ cluster: LAB_NETBOX.cluster }),
    args: [{ cluster: LAB_NETBOX.cluster }],
    workflowIdConflictPolicy: 'USE_EXISTING',
    typedSearchAttributes: [{ key: FerryKind, value: 'provision-planned' }],
    staticSummary: `lab sample: provision the planned VMs of ${LAB_NETBOX.cluster}`,
  });
}

export function logSampleProvisioning(
  result: ProvisionPlannedStatus,
  log: (line: string) => void,
  commands: LabCommands,
  taskQueue: string,
): void {
  const built = result.vms.filter((v) => v.outcome === 'provisioned');
  log(`lab: provisioned ${built.length} of ${result.vms.length} planned NetBox VMs:`);
  for (const vm of result.vms) {
    log(
      `  ${vm.name.padEnd(10)} ${vm.outcome === 'provisioned' ? `VM ${vm.vmid} ${vm.address ?? ''}`.padEnd(26) : (vm.outcome ?? vm.state).padEnd(26)} ${vm.workflowId}${vm.error ? `: ${vm.error}` : ''}`,
    );
  }
  const [first] = built;
  if (!first) return;
  log(`  status:   ${commands.ferry} status ${first.workflowId}`);
  log(`  teardown: ${commands.ferry} teardown --vmid ${first.vmid} --wait`);
  log(
    `  or:       .tools/bin/temporal workflow start${commands.temporalFlags ? ` ${commands.temporalFlags}` : ''} --type teardownVm --task-queue ${taskQueue} --workflow-id teardown-${first.vmid} --input '{"vmid":${first.vmid}}'`,
  );
}

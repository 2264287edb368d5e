import { WorkflowFailedError } from '@temporalio/client';
import { provisionWorkflowId, type ProvisionResult } from '../../../src/domain/provisioning';
import type { provisionVm } from '../../../workflows/provision-vm';
import { useProvisionLab } from '../../helpers/provision-lab';

/**
 * Without provisioning.node and without ferry_node, provisioning places the VM (issue 16 item 6).
 * The sample cluster's local-lvm thin pools: pve1 200 GiB, pve2 100 GiB, pve3 400 GiB.
 */
describe('provisionVm places a VM whose record names no node', () => {
  jest.setTimeout(180_000);
  const suite = useProvisionLab('pplace', { provisioning: { node: undefined } });

  const provision = (netboxId: number) =>
    suite.temporal.client.workflow.execute<typeof provisionVm>('provisionVm', {
      taskQueue: suite.workers.taskQueue,
      workflowId: `${suite.workers.taskQueue}-${provisionWorkflowId({ netboxId })}`,
      args: [{ netboxId }],
    });

  const vmsNamed = async (name: string) =>
    (await suite.lab.deps.proxmox!.vms.listEverywhere()).filter((vm) => vm.name === name);

  it('puts a VM whose disk fits only on pve3 on pve3', async () => {
    const { id, name } = await suite.lab.plannedVm({ disk: 300 * 1024, fields: { ferry_node: null } });
    const result: ProvisionResult = await provision(id);
    expect(result.outcome).toBe('provisioned');
    expect(result.node).toBe('pve3');
    const vms = await vmsNamed(name);
    expect(vms.map((vm) => vm.node)).toEqual(['pve3']);
  });

  it('refuses a VM too big for any storage with the numbers, and creates nothing', async () => {
    const { id, name } = await suite.lab.plannedVm({ disk: 500 * 1024, fields: { ferry_node: null } });
    const failure = await provision(id).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    const message = String((failure as WorkflowFailedError).cause?.message);
    expect(message).toMatch(new RegExp(`^${name} does not fit: `));
    expect(message).toMatch(/local-lvm on pve3: needs 500 GiB, \d+ GiB free/);
    expect(message).toContain('Nothing was created');
    expect(await vmsNamed(name)).toEqual([]);
  });

  it('checks the storage of a node the record names: too big for pve2 is refused', async () => {
    const { id, name } = await suite.lab.plannedVm({ disk: 150 * 1024, fields: { ferry_node: 'pve2' } });
    const failure = await provision(id).catch((err: unknown) => err);
    expect(String((failure as WorkflowFailedError).cause?.message)).toMatch(
      /local-lvm on pve2: needs 150 GiB, \d+ GiB free/,
    );
    expect(await vmsNamed(name)).toEqual([]);
  });
});

import { rootCauseMessage } from '../../../cli/workflow-result';
import { customFieldSchema } from '../../../src/netbox/schemas';
import type { provisionPlanned } from '../../../workflows/provision-planned';
import { useProvisionLab } from '../../helpers/provision-lab';

/**
 * provisionPlanned places its batch together (issue 16 item 6). The sample cluster's local-lvm thin
 * pools: pve1 200 GiB, pve2 100 GiB, pve3 400 GiB: four 180 GiB disks fit three times (pve1 once,
 * pve3 twice), and the fourth VM is refused with the numbers and not started.
 */
describe('provisionPlanned places records that name no node as one batch', () => {
  jest.setTimeout(240_000);
  const suite = useProvisionLab('pplan', { provisioning: { node: undefined } });

  it('spreads the batch over the nodes with room and refuses what is left over, creating nothing for it', async () => {
    const tag = await suite.lab.tag(`place-${suite.workers.taskQueue.slice(-8)}`);
    const records = [];
    for (let i = 0; i < 4; i++)
      records.push(await suite.lab.plannedVm({ tags: [tag], disk: 180 * 1024, fields: { ferry_node: null } }));
    const result = await suite.temporal.client.workflow.execute<typeof provisionPlanned>('provisionPlanned', {
      taskQueue: suite.workers.taskQueue,
      workflowId: `${suite.workers.taskQueue}-planned`,
      args: [{ tag, maxConcurrent: 2 }],
    });
    const provisioned = result.vms.filter((vm) => vm.outcome === 'provisioned');
    const failed = result.vms.filter((vm) => vm.outcome === 'failed');
    expect(provisioned).toHaveLength(3);
    expect(failed).toHaveLength(1);
    expect(failed[0]!.error).toMatch(/does not fit: .*local-lvm on pve\d: needs 180 GiB, \d+ (GiB|MiB) free/);
    expect(failed[0]!.error).toContain('Not started');

    // In the simulator: the three on pve1, pve3, pve3; none for the refused one.
    const all = await suite.lab.deps.proxmox!.vms.listEverywhere();
    const names = new Set(records.map((r) => r.name));
    const ours = all.filter((vm) => vm.name !== undefined && names.has(vm.name));
    expect(ours.map((vm) => vm.node).sort()).toEqual(['pve1', 'pve3', 'pve3']);
    expect(ours.map((vm) => vm.name)).not.toContain(failed[0]!.name);
  });

  it('places the rest of a batch whose list holds a record ferry cannot read; that record fails on its own, saying why', async () => {
    const nb = suite.lab.nb;
    const tag = await suite.lab.tag(`unread-${suite.workers.taskQueue.slice(-8)}`);
    // A person dropped the field's validation: NetBox now keeps a VLAN no bridge has.
    const [vlanField] = await nb.http.list('api/extras/custom-fields/', { name: 'ferry_vlan' }, customFieldSchema);
    await nb.http.request('PATCH', `api/extras/custom-fields/${vlanField!.id}/`, {
      schema: customFieldSchema,
      body: { validation_maximum: null },
    });
    try {
      const good = await suite.lab.plannedVm({ tags: [tag], fields: { ferry_node: null } });
      const bad = await suite.lab.plannedVm({ tags: [tag], fields: { ferry_node: null, ferry_vlan: 5000 } });
      const result = await suite.temporal.client.workflow.execute<typeof provisionPlanned>('provisionPlanned', {
        taskQueue: suite.workers.taskQueue,
        workflowId: `${suite.workers.taskQueue}-unreadable`,
        args: [{ tag }],
      });
      expect(result.vms.find((vm) => vm.netboxId === good.id)).toMatchObject({ outcome: 'provisioned' });
      const failed = result.vms.find((vm) => vm.netboxId === bad.id);
      expect(failed).toMatchObject({ outcome: 'failed' });
      const cause = await suite.temporal.client.workflow
        .getHandle(failed!.workflowId)
        .result()
        .catch((err: unknown) => err);
      expect(rootCauseMessage(cause)).toContain(
        `NetBox VM "${bad.name}" (id ${bad.id}) has invalid ferry custom fields: ferry_vlan`,
      );
    } finally {
      await nb.http.request('PATCH', `api/extras/custom-fields/${vlanField!.id}/`, {
        schema: customFieldSchema,
        body: { validation_maximum: 4094 },
      });
    }
  });
});

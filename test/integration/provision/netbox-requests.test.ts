import { parseConfig } from '../../../src/config';
import { provisionWorkflowId } from '../../../src/domain/provisioning';
import type { provisionVm } from '../../../workflows/provision-vm';
import { createDependencies } from '../../../worker/dependencies';
import { startNetboxProxy } from '../../helpers/netbox-proxy';
import { runWorkers, useProvisionLab } from '../../helpers/provision-lab';

/**
 * NetBox is what bounds provisioning throughput (docs/benchmarks.md): each request costs its
 * gunicorn worker tens of milliseconds of CPU. These are the requests one new VM costs, through a
 * logging proxy in front of the real NetBox, so a change that adds one is seen.
 */
describe('the NetBox requests of a provision', () => {
  jest.setTimeout(180_000);
  const suite = useProvisionLab('nbreq');

  it('a new VM: one read, the VMID write, interface, MAC, address and status, each written once without a read before it', async () => {
    const proxy = await startNetboxProxy(suite.lab.netbox.url);
    const document = { ...suite.lab.document, netbox: { ...(suite.lab.document.netbox as object), url: proxy.url } };
    const deps = await createDependencies(parseConfig(document, suite.lab.env, 'netbox-requests test'));
    const workers = await runWorkers(suite.temporal.nativeConnection, deps, 'nbreq-proxied');
    try {
      const { id } = await suite.lab.plannedVm({});
      const result = await suite.temporal.client.workflow.execute<typeof provisionVm>('provisionVm', {
        taskQueue: workers.taskQueue,
        workflowId: `${workers.taskQueue}-${provisionWorkflowId({ netboxId: id })}`,
        args: [{ netboxId: id }],
      });
      expect(result.outcome).toBe('provisioned');
      const vm = `/api/virtualization/virtual-machines/${id}/`;
      expect(proxy.requests).toEqual([
        `GET ${vm} 200`, // the record
        'GET /api/virtualization/virtual-machines/ 200', // the VMID allocator: the VMIDs NetBox holds
        `PATCH ${vm} 200`, // ferry_vmid, guarded by the ETag of the first read
        'POST /api/virtualization/interfaces/ 201', // the VM had none: no look first
        'POST /api/dcim/mac-addresses/ 201',
        expect.stringMatching(/^PATCH \/api\/virtualization\/interfaces\/\d+\/ 200$/), // its primary MAC
        'GET /api/ipam/prefixes/ 200', // once a minute per worker
        expect.stringMatching(/^POST \/api\/ipam\/prefixes\/\d+\/available-ips\/ 201$/),
        `PATCH ${vm} 200`, // primary IPv4
        `PATCH ${vm} 200`, // planned → staged, guarded by the ETag the last write answered
      ]);
      const { value: record } = await suite.lab.nb.getVirtualMachine(id);
      expect(record).toMatchObject({ status: { value: 'staged' }, custom_fields: { ferry_vmid: result.vmid }, primary_ip4: { address: result.address } });
    } finally {
      await workers.stop();
      await deps.netbox?.close();
      await deps.proxmox?.close();
      await proxy.close();
    }
  });
});

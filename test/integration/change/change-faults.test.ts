import path from 'node:path';
import type { RequestLogEntry } from '../../../lab/proxmox-sim/server';
import type { ChangeResult } from '../../../src/domain/change-vm';
import { provisionWorkflowId, type ProvisionResult } from '../../../src/domain/provisioning';
import type { changeVm } from '../../../workflows/change-vm';
import type { provisionVm } from '../../../workflows/provision-vm';
import { runWorkers, startProvisionLab, type ProvisionLab } from '../../helpers/provision-lab';
import { connectTestTemporal, uniqueName, type TestTemporal } from '../../helpers/temporal';
import { startWorkerProcess, type WorkerProcess } from '../../helpers/worker-process';
import { runningActivity, until } from '../../helpers/wait';

/** A write Proxmox carried out: answered 200, or processed with its answer lost (drop-after). */
const processed = (r: RequestLogEntry) =>
  r.method !== 'GET' && ((r.status === 200 && r.fault === undefined) || r.fault === 'drop-after');

/**
 * Day 2 when things break: Proxmox refusing writes with a lock, failing and dropping answers, and a
 * worker killed (SIGKILL) while its config write is in flight. Each change must reach the VM exactly
 * once (the activity reads before it writes, so a retry finds an earlier attempt's write done), none
 * is lost, and the outcomes say what Proxmox has.
 */
describe('changeVm under faults', () => {
  jest.setTimeout(600_000);
  let temporal: TestTemporal;
  let lab: ProvisionLab;

  beforeAll(async () => {
    temporal = await connectTestTemporal();
    lab = await startProvisionLab({
      provisioning: { extras: { rng0: 'source=/dev/urandom', numa: '1', hotplug: 'network,disk,memory,usb' } },
      change: { debounce: '500ms' },
    });
  });
  afterAll(async () => {
    await lab?.stop();
    await temporal?.close();
  });

  async function runningVm(taskQueue: string): Promise<{ id: number; vmid: number }> {
    const { id } = await lab.plannedVm({ vcpus: 2, memory: 2048, disk: 4096, fields: { ferry_vlan: 20 } });
    const built: ProvisionResult = await temporal.client.workflow.execute<typeof provisionVm>('provisionVm', {
      taskQueue,
      workflowId: `${taskQueue}-${provisionWorkflowId({ netboxId: id })}`,
      args: [{ netboxId: id, start: true }],
    });
    return { id, vmid: built.vmid! };
  }

  const startChange = (taskQueue: string, netboxId: number, vmid: number) =>
    temporal.client.workflow.start<typeof changeVm>('changeVm', {
      taskQueue,
      workflowId: `${taskQueue}-change-${vmid}`,
      args: [{ netboxId, vmid, trigger: { source: 'ferry-apply', at: new Date().toISOString() } }],
    });

  it('locks, 5xx and lost answers on every write and read of the VM: each change applied once, outcomes true', async () => {
    const workers = await runWorkers(temporal.nativeConnection, lab.deps, 'chgfault');
    try {
      const { id, vmid } = await runningVm(workers.taskQueue);
      await lab.nb.updateVirtualMachine(id, { memory: 3072, disk: 8192, custom_fields: { ferry_vlan: 30 } });
      await lab.admin.clearLog();
      await lab.admin.setFaults({
        seed: 34,
        lockRate: 0.3,
        errorRate: 0.2,
        dropRate: 0.2,
        pathPattern: `/qemu/${vmid}/(config|pending|resize)$`,
      });
      const result: ChangeResult = await (await startChange(workers.taskQueue, id, vmid)).result();
      await lab.admin.clearFaults();
      expect(Object.fromEntries(result.outcomes.map((o) => [o.id, o.outcome]))).toEqual({
        memory: 'applied-live',
        'scsi0.size': 'applied-live',
        'net0.tag': 'applied-live',
      });
      const { requests } = await lab.admin.log();
      const faults = requests.filter((r) => r.fault);
      expect(faults.length).toBeGreaterThan(2);
      // One config write (memory and the VLAN together) and one resize reached the VM, whatever was retried.
      const writes = requests.filter(processed);
      expect(writes.map((r) => `${r.method} ${r.path.replace(/^.*\/qemu\/\d+\//, '')}`)).toEqual([
        expect.stringMatching(/^(POST|PUT) config$/),
        'PUT resize',
      ]);
      const values = (await lab.deps.proxmox!.config.get('pve1', vmid, { current: true })).values;
      expect([values.memory, values.scsi0?.match(/size=\w+/)?.[0], values.net0?.match(/tag=\d+/)?.[0]]).toEqual([
        '3072',
        'size=8G',
        'tag=30',
      ]);
    } finally {
      await lab.admin.clearFaults();
      await workers.stop();
    }
  });

  it('a worker killed (SIGKILL) while its config write is in flight: the change completes on a new worker, written once', async () => {
    const taskQueue = uniqueName('chgkill');
    const config = { ...lab.document, worker: { taskQueue, shutdownGraceTime: '1s' } };
    const configFile = path.join(lab.stateDir, 'worker-change.yaml');
    let worker: WorkerProcess = await startWorkerProcess({
      prebuiltBundle: true,
      name: 'c1',
      config,
      env: lab.env,
      configFile,
    });
    try {
      const { id, vmid } = await runningVm(taskQueue);
      await lab.nb.updateVirtualMachine(id, { memory: 3072 });
      await lab.admin.clearLog();
      // The write waits 3 s in Proxmox before it is carried out: the kill lands while it is in flight.
      await lab.admin.setFaults({ seed: 1, latencyMs: { min: 3000, max: 3000 }, pathPattern: `/qemu/${vmid}/config$` });
      const handle = await startChange(taskQueue, id, vmid);
      await until('the config write running', () =>
        runningActivity(temporal.client, [handle.workflowId], 'writeVmConfig'),
      );
      await until('the write sent to Proxmox', async () =>
        (await lab.admin.log()).requests.some((r) => r.method !== 'GET' && r.path.endsWith('/config'))
          ? true
          : undefined,
      );
      await worker.kill();
      await lab.admin.clearFaults();
      worker = await startWorkerProcess({ prebuiltBundle: true, name: 'c2', config, env: lab.env, configFile });
      const result: ChangeResult = await handle.result();
      expect(result.outcomes.map((o) => [o.id, o.outcome])).toEqual([['memory', 'applied-live']]);
      const writes = (await lab.admin.log()).requests.filter(processed);
      expect(writes.map((r) => `${r.method} ${r.path.replace(/^.*\/qemu\/\d+\//, '')}`)).toEqual([
        expect.stringMatching(/^(POST|PUT) config$/),
      ]);
      expect((await lab.deps.proxmox!.config.get('pve1', vmid, { current: true })).values.memory).toBe('3072');
    } finally {
      await worker.stop();
    }
  });
});

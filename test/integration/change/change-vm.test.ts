import { z } from 'zod';
import { apiWrites } from '../../../lab/proxmox-sim/admin-client';
import type { ChangeResult } from '../../../src/domain/change-vm';
import { approveChangeUpdate, changeStatusQuery } from '../../../src/domain/messages';
import type { changeVm } from '../../../workflows/change-vm';
import type { planChange } from '../../../workflows/plan-change';
import { provisionedVm, useProvisionLab } from '../../helpers/provision-lab';

/**
 * Day 2 against the Proxmox simulator (qemu-server's pending/hotplug rules) and a real NetBox: an edit of
 * a running VM's record is planned, applied live where Proxmox can, held for an approval where the VM
 * must restart, verified by reading Proxmox back, and recorded (baseline, journal). The real guest's own
 * view is checked in test/integration/change/change-guest.test.ts.
 */
describe('changeVm: a NetBox edit reaches the running VM', () => {
  jest.setTimeout(240_000);
  const suite = useProvisionLab('chg', {
    provisioning: { extras: { rng0: 'source=/dev/urandom', numa: '1', hotplug: 'network,disk,memory,usb' } },
    change: { debounce: '500ms' },
  });

  const provisioned = (memory = 2048, disk = 4096) =>
    provisionedVm(suite, { memory, disk, fields: { ferry_vlan: 20 } });

  const plan = (netboxId: number) =>
    suite.temporal.client.workflow.execute<typeof planChange>('planChange', {
      taskQueue: suite.workers.taskQueue,
      workflowId: `${suite.workers.taskQueue}-plan-change-${netboxId}-${Date.now()}`,
      args: [{ netboxId }],
    });

  const startChange = (netboxId: number, vmid: number) =>
    suite.temporal.client.workflow.start<typeof changeVm>('changeVm', {
      taskQueue: suite.workers.taskQueue,
      workflowId: `${suite.workers.taskQueue}-change-${vmid}`,
      args: [{ netboxId, vmid, trigger: { source: 'ferry-apply', at: new Date().toISOString() } }],
    });

  async function untilStage(handle: Awaited<ReturnType<typeof startChange>>, stage: string): Promise<void> {
    const deadline = Date.now() + 120_000;
    for (;;) {
      const status = await handle.query(changeStatusQuery);
      if (status.stage === stage) return;
      if (Date.now() > deadline || status.stage === 'failed' || status.stage === 'done')
        throw new Error(`changeVm never reached ${stage}: ${JSON.stringify(status, null, 1).slice(0, 3000)}`);
      await new Promise((r) => setTimeout(r, 300));
    }
  }

  it('applies memory, a grown disk and a new VLAN live, holds a restart-only change until approved, and a rerun writes nothing', async () => {
    const { id, vmid } = await provisioned();
    const pve = suite.lab.deps.proxmox!;
    // A freshly provisioned VM plans to nothing.
    const first = await plan(id);
    expect(first.plan?.changes).toEqual([]);

    await suite.lab.nb.updateVirtualMachine(id, {
      memory: 3072,
      vcpus: 4,
      disk: 8192,
      custom_fields: { ferry_vlan: 30 },
    });
    const planned = (await plan(id)).plan!;
    expect(Object.fromEntries(planned.changes.map((c) => [c.id, c.class]))).toEqual({
      memory: 'live',
      vcpus: 'at-restart',
      'scsi0.size': 'live',
      'net0.tag': 'live',
    });

    const handle = await startChange(id, vmid);
    await untilStage(handle, 'awaiting-approval');
    const waiting = await handle.query(changeStatusQuery);
    expect(Object.fromEntries(waiting.outcomes.map((o) => [o.id, o.outcome]))).toEqual({
      memory: 'applied-live',
      vcpus: 'held',
      'scsi0.size': 'applied-live',
      'net0.tag': 'applied-live',
    });
    const live = (await pve.config.get('pve1', vmid, { current: true })).values;
    expect(live.memory).toBe('3072');
    expect(live.scsi0).toMatch(/size=8G/);
    expect(live.net0).toMatch(/tag=30/);
    expect(live.cores).toBe('2');

    await handle.executeUpdate(approveChangeUpdate, {
      args: [{ by: 'alice', reason: 'the test restarts it', restart: true }],
    });
    const result: ChangeResult = await handle.result();
    expect(result.outcome).toBe('applied');
    expect(result.restarted).toBe(true);
    expect(result.outcomes.find((o) => o.id === 'vcpus')).toMatchObject({ outcome: 'applied-after-restart' });
    expect((await pve.config.get('pve1', vmid, { current: true })).values.cores).toBe('4');

    // What the run sent is what the plan said, step by step.
    expect(result.sent).toEqual([
      { step: 'live', changes: planned.steps.live!.changes },
      ...planned.steps.resizes.map((r) => ({ step: 'resize', changes: [r.change] })),
      { step: 'restart', changes: planned.steps.restart!.changes },
    ]);

    // The baseline and the journal are in NetBox.
    const { value: record } = await suite.lab.nb.getVirtualMachine(id);
    expect((record.custom_fields as Record<string, unknown>).ferry_applied).toMatchObject({ version: 1 });

    // A rerun has nothing to do and writes nothing: not to Proxmox, not to NetBox (no baseline, no journal).
    const journalOf = async () =>
      (
        await suite.lab.nb.http.request('GET', 'api/extras/journal-entries/', {
          schema: z.looseObject({ count: z.number() }),
          query: { assigned_object_type: 'virtualization.virtualmachine', assigned_object_id: id },
        })
      ).data.count;
    const journalBefore = await journalOf();
    expect(journalBefore).toBeGreaterThan(0);
    const versionBefore = (await suite.lab.nb.getVirtualMachine(id)).value.last_updated;
    const mark = (await suite.lab.admin.log()).requests.length;
    const again = await (await startChange(id, vmid)).result();
    expect(again.outcome).toBe('nothing-to-do');
    expect(apiWrites((await suite.lab.admin.log()).requests.slice(mark))).toEqual([]);
    expect(await journalOf()).toBe(journalBefore);
    expect((await suite.lab.nb.getVirtualMachine(id)).value.last_updated).toBe(versionBefore);
  });

  it('adds a disk NetBox gained live, refuses a shrink with its reason, and leaves a disk removed in NetBox as unusedN', async () => {
    const { id, vmid } = await provisioned(1024, 4096);
    const pve = suite.lab.deps.proxmox!;
    const disks = 'api/virtualization/virtual-disks/';
    const addDisk = (name: string, size: number) =>
      suite.lab.nb.http.request('POST', disks, {
        schema: z.looseObject({ id: z.number() }),
        body: { virtual_machine: id, name, size },
      });
    // NetBox now lists the VM's disks: scsi0 as built, and a new scsi1.
    const { data: scsi0 } = await addDisk('scsi0', 4096);
    await addDisk('scsi1', 1024);
    const added = await (await startChange(id, vmid)).result();
    expect(added.outcomes.map((o) => [o.id, o.outcome])).toEqual([['scsi1', 'applied-live']]);
    const withScsi1 = (await pve.config.get('pve1', vmid, { current: true })).values;
    expect(withScsi1.scsi1).toMatch(/^local-lvm:vm-\d+-disk-\d+,.*size=1G/);

    // scsi0 shrunk and scsi1 removed in NetBox.
    await suite.lab.nb.http.request('PATCH', `${disks}${scsi0.id}/`, {
      schema: z.looseObject({ id: z.number() }),
      body: { size: 2048 },
    });
    const { data: list } = await suite.lab.nb.http.request('GET', `${disks}?virtual_machine_id=${id}&name=scsi1`, {
      schema: z.looseObject({ results: z.array(z.looseObject({ id: z.number() })) }),
    });
    await suite.lab.nb.http.request('DELETE', `${disks}${list.results[0]!.id}/`, { schema: z.unknown() });

    const planned = (await plan(id)).plan!;
    const shrink = planned.changes.find((c) => c.id === 'scsi0.size');
    expect(shrink).toMatchObject({ class: 'refused' });
    expect(shrink!.why).toMatch(/shrink/i);
    expect(planned.changes.find((c) => c.id === 'scsi1')).toMatchObject({ class: 'detach' });

    const result = await (await startChange(id, vmid)).result();
    expect(result.outcome).toBe('partial');
    expect(Object.fromEntries(result.outcomes.map((o) => [o.id, o.outcome]))).toEqual({
      'scsi0.size': 'refused',
      scsi1: 'applied-live',
    });
    const after = (await pve.config.get('pve1', vmid, { current: true })).values;
    expect(after.scsi1).toBeUndefined();
    // The volume is kept: it is unusedN now, and scsi0 keeps its size.
    expect(after.unused0).toBe(withScsi1.scsi1!.split(',')[0]);
    expect(after.scsi0).toMatch(/size=4G/);
    // NetBox's journal on the VM says what happened, the refusal with its reason.
    const { data: journal } = await suite.lab.nb.http.request(
      'GET',
      `api/extras/journal-entries/?assigned_object_type=virtualization.virtualmachine&assigned_object_id=${id}&ordering=-created`,
      {
        schema: z.looseObject({
          results: z.array(z.looseObject({ kind: z.looseObject({ value: z.string() }), comments: z.string() })),
        }),
      },
    );
    expect(journal.results[0]!.kind.value).toBe('warning');
    expect(journal.results[0]!.comments).toMatch(/scsi0\.size.*refused/);
  });
});

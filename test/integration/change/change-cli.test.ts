import { randomInt } from 'node:crypto';
import { changeVmWorkflowId, type ChangeResult } from '../../../src/domain/change-vm';
import { changeStatusQuery } from '../../../src/domain/messages';
import type { PlanChangeResult } from '../../../workflows/plan-change';
import { waitsForDecision } from '../../../cli/change-runs';
import { ferryOn, provisionedVm, useProvisionLab } from '../../helpers/provision-lab';
import { makeKeys } from '../../helpers/ssh-keys';

/**
 * Day 2 as users start it: `ferry plan --change`, `ferry apply` (one VM, or every built VM with a tag),
 * `ferry status`, and `ferry approve`/`reject` of `change-<vmid>` with a signed approval, each spawned as
 * the command a person runs, against the Proxmox simulator, a real NetBox and a real Temporal.
 */
describe('ferry plan --change, apply, status, approve and reject of a day-2 change', () => {
  jest.setTimeout(600_000);
  const signers = makeKeys('alice');
  // VMIDs of their own: `change-<vmid>` lives on the run's shared dev server.
  const vmidMin = 100_000 + randomInt(0, 800_000_000);
  const suite = useProvisionLab('chgcli', {
    provisioning: {
      extras: { rng0: 'source=/dev/urandom', numa: '1', hotplug: 'network,disk,memory,usb' },
      vmidRange: { min: vmidMin, max: vmidMin + 99 },
      approvals: 'signed',
      approvers: [{ name: 'alice', key: signers.keys.alice!.publicLine }],
    },
    change: { debounce: '300ms' },
  });
  afterAll(() => signers.remove());

  const ferry = ferryOn(suite);
  const provisioned = (tag: string) => provisionedVm(suite, { tags: [tag] });

  async function atGate(vmid: number): Promise<void> {
    const handle = suite.temporal.client.workflow.getHandle(changeVmWorkflowId(vmid));
    const deadline = Date.now() + 120_000;
    while (!waitsForDecision(await handle.query(changeStatusQuery))) {
      if (Date.now() > deadline) throw new Error(`change-${vmid} never waited for a decision`);
      await new Promise((r) => setTimeout(r, 300));
    }
  }

  it('refuses what cannot be meant with a usage error', async () => {
    const runs = await Promise.all([
      ferry('plan', '--change'),
      ferry('plan', '--netbox-id', '3'),
      ferry('plan', '--change', '--netbox-id', '3', '--names', 'web1'),
      ferry('apply'),
      ferry('apply', '--netbox-id', '3', '--tag', 'web'),
      ferry('apply', '--netbox-id', 'x'),
    ]);
    expect(runs.map((r) => r.code)).toEqual([2, 2, 2, 2, 2, 2]);
    expect(runs[0]!.output).toContain('--change needs the NetBox VM: --netbox-id N');
    expect(runs[1]!.output).toContain('--netbox-id goes with --change');
    expect(runs[2]!.output).toContain('--names select VMware VMs for a migration plan');
    expect(runs[3]!.output).toContain('say what to apply: --netbox-id N, or --cluster C and/or --tag T');
  });

  it('plans, applies live, holds a restart-only change for a signed approval, and applies it after the restart', async () => {
    const tag = await suite.lab.tag(`day2-${randomInt(1e9)}`);
    const a = await provisioned(tag);
    const b = await provisioned(tag);
    const workflowId = changeVmWorkflowId(a.vmid);

    const agreed = await ferry('plan', '--change', '--netbox-id', String(a.id));
    expect(agreed.code).toBe(0);
    expect(agreed.output).toContain(`NetBox VM ${a.name} (id ${a.id}) → Proxmox VM ${a.vmid} on pve1 (running)`);
    expect(agreed.output).toContain('no changes: NetBox and Proxmox agree');

    await suite.lab.nb.updateVirtualMachine(a.id, { memory: 3072, vcpus: 4 });
    const text = await ferry('plan', '--change', '--netbox-id', String(a.id));
    expect(text.output).toMatch(/memory: 2048 MiB → 3072 MiB \[live, NetBox\] .+\n +rule: PVE\/QemuServer\/Memory\.pm/);
    expect(text.output).toMatch(/vcpus: 2 → 4 \[at-restart, NetBox\]/);
    expect(text.output).toMatch(/restart: one config write .+: vcpus/);
    const json = await ferry('plan', '--change', '--netbox-id', String(a.id), '--json');
    const planned = JSON.parse(json.output) as PlanChangeResult;
    expect(Object.fromEntries(planned.plan!.changes.map((c) => [c.id, c.class]))).toEqual({
      vcpus: 'at-restart',
      memory: 'live',
    });

    const applied = await ferry('apply', '--netbox-id', String(a.id), '--wait');
    expect(applied.code).toBe(0);
    const runId = applied.output.match(new RegExp(`workflow ${workflowId} \\(run (\\S+)\\)`))?.[1];
    expect(runId).toBeDefined();
    expect(applied.output).toContain(
      `waits for an approval of the changes that wait for a restart: ferry approve ${workflowId}`,
    );
    expect(applied.output).toMatch(/memory: 2048 MiB → 3072 MiB .+\n +→ applied-live/);
    expect(applied.output).toMatch(/vcpus: 2 → 4 .+\n +→ held: not sent/);
    expect((await suite.lab.deps.proxmox!.config.get('pve1', a.vmid, { current: true })).values.memory).toBe('3072');

    // A second apply finds the run and makes it plan again: one run, not two.
    const again = await ferry('apply', '--netbox-id', String(a.id));
    expect(again.output).toContain(`workflow ${workflowId} (run ${runId})`);
    await atGate(a.vmid);

    const status = await ferry('status', workflowId);
    expect(status.code).toBe(0);
    expect(status.output).toContain(`${workflowId} (changeVm): RUNNING`);
    expect(status.output).toContain('stage: awaiting-approval');
    expect(status.output).toMatch(/vcpus: 2 → 4 .+\n +→ held/);

    // Approvals are signed here: a bare name is refused by the workflow, a signed one over the plan taken.
    const unsigned = await ferry('approve', workflowId, '--by', 'alice', '--reason', 'test', '--restart');
    expect(unsigned.code).toBe(1);
    expect(unsigned.output).toContain("approvals are signed here: alice's approval has no signature");
    const signedNoRestart = await ferry(
      'approve',
      workflowId,
      '--by',
      'alice',
      '--reason',
      'test',
      '--print-statement',
    );
    expect(signedNoRestart.output).toContain('plan: vcpus: 2 → 4 [at-restart, NetBox]');
    const signed = await ferry(
      'approve',
      workflowId,
      '--by',
      'alice',
      '--reason',
      'maintenance',
      '--restart',
      '--key',
      signers.keys.alice!.file,
    );
    expect(signed.output).toContain(`approve: accepted by ${workflowId}`);
    const result: ChangeResult = await suite.temporal.client.workflow.getHandle(workflowId).result();
    expect(result.outcome).toBe('applied');
    expect(result.approval).toMatchObject({ by: 'alice', restart: true, signed: true });
    expect(result.outcomes.find((o) => o.id === 'vcpus')).toMatchObject({ outcome: 'applied-after-restart' });
    const done = await ferry('status', workflowId);
    expect(done.output).toContain('approved by alice (ferry restarts the VM): maintenance');
    expect(done.output).toMatch(/vcpus: 2 → 4 .+\n +→ applied-after-restart/);

    // Every built VM with the tag: one changeVm each, listed; both agree with NetBox now.
    const byTag = await ferry('apply', '--tag', tag, '--wait');
    expect(byTag.code).toBe(0);
    expect(byTag.output).toContain(`apply: ${a.name} (NetBox VM ${a.id}, VM ${a.vmid})`);
    expect(byTag.output).toContain(`apply: ${b.name} (NetBox VM ${b.id}, VM ${b.vmid})`);
    expect(byTag.output).toContain('2 VM(s) applied, 0 skipped');
    expect(byTag.output).toContain(`${changeVmWorkflowId(b.vmid)}: nothing-to-do`);
    expect(byTag.output).toContain(`${workflowId}: nothing-to-do`);

    // A rejection: the live change stays, the restart-only one is not written.
    await suite.lab.nb.updateVirtualMachine(b.id, { vcpus: 3 });
    const held = await ferry('apply', '--netbox-id', String(b.id), '--wait');
    expect(held.output).toContain(`ferry approve ${changeVmWorkflowId(b.vmid)}`);
    const rejected = await ferry('reject', changeVmWorkflowId(b.vmid), '--by', 'alice', '--reason', 'not now');
    expect(rejected.output).toContain(`reject: accepted by ${changeVmWorkflowId(b.vmid)}`);
    const ended: ChangeResult = await suite.temporal.client.workflow.getHandle(changeVmWorkflowId(b.vmid)).result();
    expect(ended.outcome).toBe('rejected');
    expect((await suite.lab.deps.proxmox!.config.get('pve1', b.vmid, { current: true })).values.cores).toBe('2');
  });
});

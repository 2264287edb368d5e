import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { sshSign } from '../../../src/approval-signing';
import { provisioningSettings } from '../../../src/config/provisioning-settings';
import { approvalStatement, teardownPlanDigest } from '../../../src/domain/approvals';
import { provisionWorkflowId, type TeardownDecision, type TeardownResult } from '../../../src/domain/provisioning';
import { ipAddressSchema, macAddressSchema } from '../../../src/netbox/schemas';
import {
  approveTeardownSignal,
  approveTeardownUpdate,
  rejectTeardownUpdate,
  teardownStatusQuery,
} from '../../../src/domain/messages';
import type { provisionVm } from '../../../workflows/provision-vm';
import type { teardownVm } from '../../../workflows/teardown-vm';
import { dig } from '../../helpers/bind-tools';
import { useProvisionLab } from '../../helpers/provision-lab';
import { makeKeys } from '../../helpers/ssh-keys';
import { until } from '../../helpers/wait';

const KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHl0ZXN0a2V5dGVzdGtleXRlc3RrZXl0ZXN0a2V5';

describe('teardownVm against the Proxmox simulator, a real NetBox and BIND', () => {
  jest.setTimeout(180_000);
  const suite = useProvisionLab('down');

  /** A planned record provisioned and started: a VM in service. */
  async function runningVm(): Promise<{
    id: number;
    name: string;
    vmid: number;
    address: string;
    fqdn: string;
    mac: string;
  }> {
    const { id, name } = await suite.lab.plannedVm({});
    const result = await suite.temporal.client.workflow.execute<typeof provisionVm>('provisionVm', {
      taskQueue: suite.workers.taskQueue,
      workflowId: `${suite.workers.taskQueue}-${provisionWorkflowId({ netboxId: id })}`,
      args: [{ netboxId: id, start: true }],
    });
    expect((await suite.lab.deps.proxmox!.power.status('pve1', result.vmid!)).status).toBe('running');
    const mac = result.macs.net0!;
    expect(
      await suite.lab.nb.http.list('api/dcim/mac-addresses/', { mac_address: mac }, macAddressSchema),
    ).toHaveLength(1);
    return { id, name, vmid: result.vmid!, address: result.address!, fqdn: result.fqdn!, mac };
  }

  const teardownId = (vmid: number) => `${suite.workers.taskQueue}-teardown-${vmid}`;
  const startTeardown = (vmid: number) =>
    suite.temporal.client.workflow.start<typeof teardownVm>('teardownVm', {
      taskQueue: suite.workers.taskQueue,
      workflowId: teardownId(vmid),
      args: [{ vmid }],
      workflowIdConflictPolicy: 'USE_EXISTING',
    });

  it('tears down a running VM whose guest ignores shutdown; a failing cleanup is reported, the others done; a rerun finishes it', async () => {
    const vm = await runningVm();
    const host = vm.address.split('/')[0]!;
    await suite.lab.admin.setGuest(vm.vmid, { guestAcpi: false });
    // The fault: known_hosts is a folder, so its cleanup cannot be done.
    mkdirSync(suite.lab.knownHostsFile, { recursive: true });

    const first: TeardownResult = await (await startTeardown(vm.vmid)).result();
    expect(first.outcome).toBe('incomplete');
    expect(first.steps).toEqual([
      { step: 'shutdown', outcome: 'timed-out', detail: 'the guest did not shut down within 2 s' },
      { step: 'stop', outcome: 'done', detail: 'forced' },
      { step: 'delete', outcome: 'done', detail: 'purged with its disks' },
    ]);
    expect(first.waits.map((w) => w.for)).toEqual([`VM ${vm.vmid} stopped`]);
    const byCleanup = Object.fromEntries(first.cleanups.map((c) => [c.cleanup, c]));
    expect(first.cleanups.map((c) => c.cleanup)).toEqual(['dns', 'known-hosts', 'ip', 'interfaces', 'netbox-vm']);
    expect(byCleanup.dns).toMatchObject({ result: 'done', detail: `removed PTR ${host}, ${vm.fqdn} A ${host}` });
    expect(byCleanup['known-hosts']).toMatchObject({
      result: 'failed',
      error: expect.stringContaining(`known_hosts ${suite.lab.knownHostsFile}: not a file (EISDIR)`),
    });
    expect(byCleanup.ip).toMatchObject({ result: 'done', detail: `removed ${vm.address}` });
    expect(byCleanup.interfaces).toMatchObject({
      result: 'done',
      detail: expect.stringMatching(/^removed MAC object \d+ of net0, interface net0$/),
    });
    expect(byCleanup['netbox-vm']).toMatchObject({ result: 'done', detail: `deleted NetBox VM ${vm.id}` });

    // The VM and its disks are gone; so are its records, except the one that failed.
    const pve = suite.lab.deps.proxmox!;
    expect(await pve.vms.findById(vm.vmid)).toBeUndefined();
    expect(await pve.storage.content('pve1', 'local-lvm', { vmid: vm.vmid })).toEqual([]);
    expect(await dig(suite.lab.bind, vm.fqdn, 'A')).toEqual([]);
    expect(await dig(suite.lab.bind, host, 'PTR-of')).toEqual([]);
    await expect(suite.lab.nb.getVirtualMachine(vm.id)).rejects.toMatchObject({ status: 404 });
    expect(await suite.lab.nb.http.list('api/ipam/ip-addresses/', { address: vm.address }, ipAddressSchema)).toEqual(
      [],
    );
    expect(await suite.lab.nb.http.list('api/dcim/mac-addresses/', { mac_address: vm.mac }, macAddressSchema)).toEqual(
      [],
    );

    // The fault clears: known_hosts is a file with entries for the VM (and one for another host).
    rmSync(suite.lab.knownHostsFile, { recursive: true });
    writeFileSync(suite.lab.knownHostsFile, `${vm.name} ${KEY}\n${vm.fqdn},${host} ${KEY}\nother.example.com ${KEY}\n`);
    const rerun: TeardownResult = await (await startTeardown(vm.vmid)).result();
    expect(rerun.outcome).toBe('torn-down');
    expect(rerun.resumed).toBe(true);
    expect(rerun.steps).toEqual([{ step: 'delete', outcome: 'already', detail: `Proxmox has no VM ${vm.vmid}` }]);
    expect(rerun.cleanups.map((c) => [c.cleanup, c.result])).toEqual([
      ['dns', 'already-absent'],
      ['known-hosts', 'done'],
      ['ip', 'already-absent'],
      ['interfaces', 'already-absent'],
      ['netbox-vm', 'already-absent'],
    ]);
    expect(rerun.cleanups[1]!.detail).toBe(`removed 2 line(s) of ${suite.lab.knownHostsFile} (${vm.name}, ${vm.fqdn})`);
    expect(readFileSync(suite.lab.knownHostsFile, 'utf8')).toBe(`other.example.com ${KEY}\n`);
  });

  it('a delete whose task poll answer is lost: the retry finds the VM gone and reports the delete as done by this run, not "already"', async () => {
    const vm = await runningVm();
    const admin = suite.lab.admin;
    await admin.clearLog();
    // Every answer to a poll of the destroy task is lost; the DELETE itself goes through.
    await admin.setFaults({ seed: 15, dropRate: 1, pathPattern: 'qmdestroy.*/status$' });
    let result: TeardownResult;
    try {
      result = await (await startTeardown(vm.vmid)).result();
    } finally {
      await admin.clearFaults();
    }
    const log = await admin.log();
    expect(log.requests.filter((r) => r.fault && /qmdestroy/.test(r.path)).length).toBeGreaterThan(0);
    expect(log.tasks.filter((t) => t.type === 'qmdestroy' && t.id === String(vm.vmid))).toHaveLength(1);
    expect(result.steps.find((s) => s.step === 'delete')).toEqual({
      step: 'delete',
      outcome: 'done',
      detail: 'purged with its disks',
    });
    expect(await suite.lab.deps.proxmox!.vms.findById(vm.vmid)).toBeUndefined();
  });

  it('signed teardown approvals: unsigned, unlisted-key, other-workflow and changed-target ones are refused and the VM keeps running', async () => {
    const vm = await runningVm();
    const { keys, remove } = makeKeys('alice', 'mallory');
    try {
      const deps = suite.lab.deps;
      const settings = {
        ...provisioningSettings(deps.config, { netbox: Boolean(deps.netbox), dns: Boolean(deps.dns) }),
        approvals: { mode: 'signed' as const, keys: [{ name: 'alice', key: keys.alice!.publicLine }] },
      };
      const handle = await suite.temporal.client.workflow.start<typeof teardownVm>('teardownVm', {
        taskQueue: suite.workers.taskQueue,
        workflowId: teardownId(vm.vmid),
        args: [{ vmid: vm.vmid, requireApproval: true, settings }],
      });
      const waiting = await until('the teardown at its gate', async () => {
        const s = await handle.query(teardownStatusQuery);
        return s.stage === 'awaiting-approval' ? s : undefined;
      });
      const plan = teardownPlanDigest(waiting.target!);
      const mine = { workflowId: handle.workflowId, plan };
      const signed = async (key: string, statement: typeof mine) => ({
        by: 'alice',
        reason: 'decommissioned',
        signed: {
          ...statement,
          signature: await sshSign(key, approvalStatement('approve-teardown', 'alice', 'decommissioned', statement)),
        },
      });
      const refusal = (decision: TeardownDecision) =>
        handle.executeUpdate(approveTeardownUpdate, { args: [decision] }).then(
          () => 'accepted',
          (e: WorkflowUpdateFailedError) => String(e.cause?.message),
        );
      expect(await refusal({ by: 'alice', reason: 'x' })).toMatch(/^approvals are signed here/);
      expect(await refusal(await signed(keys.mallory!.file, mine))).toBe(
        "the signature is not alice's: signed with another key",
      );
      expect(await refusal(await signed(keys.alice!.file, { ...mine, workflowId: teardownId(vm.vmid + 1) }))).toMatch(
        /^signed for .*, not for this workflow/,
      );
      const changed = teardownPlanDigest({ ...waiting.target!, node: 'pve2' });
      expect(await refusal(await signed(keys.alice!.file, { ...mine, plan: changed }))).toMatch(
        /^the plan changed since it was signed/,
      );
      // A cutover's signature is not a teardown's.
      const cutover = {
        by: 'alice',
        reason: 'decommissioned',
        signed: {
          ...mine,
          signature: await sshSign(
            keys.alice!.file,
            approvalStatement('approve-cutover', 'alice', 'decommissioned', mine),
          ),
        },
      };
      expect(await refusal(cutover)).toMatch(/^the signature is not alice's/);
      expect((await handle.query(teardownStatusQuery)).stage).toBe('awaiting-approval');
      expect((await deps.proxmox!.power.status('pve1', vm.vmid)).status).toBe('running');

      expect(await refusal(await signed(keys.alice!.file, mine))).toBe('accepted');
      const done: TeardownResult = await handle.result();
      expect(done).toMatchObject({ outcome: 'torn-down', approval: { by: 'alice', via: 'update', signed: true } });
    } finally {
      remove();
    }
  });

  it('waits for a person when the record is active: a refused approver changes nothing, a rejection keeps the VM, an approval by signal removes it', async () => {
    const vm = await runningVm();
    await suite.lab.nb.updateVirtualMachine(vm.id, { status: 'active' });
    rmSync(suite.lab.knownHostsFile, { recursive: true, force: true });

    const waitFor = async (handle: Awaited<ReturnType<typeof startTeardown>>, stage: string) => {
      for (let i = 0; i < 100; i++) {
        const status = await handle.query(teardownStatusQuery).catch(() => undefined);
        if (status?.stage === stage) return status;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`teardown never reached ${stage}`);
    };

    const first = await startTeardown(vm.vmid);
    const waiting = await waitFor(first, 'awaiting-approval');
    expect(waiting.approvalRequired).toBe(
      `NetBox VM ${vm.id} is active; provisioning.teardown.approvalFor needs a person to approve that`,
    );
    const refused = await first
      .executeUpdate(approveTeardownUpdate, { args: [{ by: 'mallory', reason: 'test' }] })
      .then(
        () => undefined,
        (err: unknown) => err,
      );
    expect(refused).toBeInstanceOf(WorkflowUpdateFailedError);
    expect((refused as WorkflowUpdateFailedError).cause?.message).toBe(
      'mallory is not an approver (approvers: lab-admin, alice)',
    );
    await first.executeUpdate(rejectTeardownUpdate, { args: [{ by: 'alice', reason: 'still in use' }] });
    const rejected: TeardownResult = await first.result();
    expect(rejected).toMatchObject({
      outcome: 'rejected',
      rejection: { by: 'alice', reason: 'still in use', via: 'update' },
      steps: [],
      cleanups: [],
    });
    expect((await suite.lab.deps.proxmox!.power.status('pve1', vm.vmid)).status).toBe('running');

    const second = await startTeardown(vm.vmid);
    await waitFor(second, 'awaiting-approval');
    await second.signal(approveTeardownSignal, { by: 'lab-admin', reason: 'decommissioned' });
    const done: TeardownResult = await second.result();
    expect(done).toMatchObject({ outcome: 'torn-down', approval: { by: 'lab-admin', via: 'signal' } });
    expect(done.steps.map((s) => [s.step, s.outcome])).toEqual([
      ['shutdown', 'done'],
      ['delete', 'done'],
    ]);
    expect(done.cleanups.find((c) => c.cleanup === 'known-hosts')).toMatchObject({ result: 'already-absent' });
    expect(await suite.lab.deps.proxmox!.vms.findById(vm.vmid)).toBeUndefined();
  });
});

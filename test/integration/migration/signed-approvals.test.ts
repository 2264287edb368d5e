import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import type { WorkflowHandle } from '@temporalio/client';
import type { UpdateDefinition } from '@temporalio/common';
import { sshSign } from '../../../src/approval-signing';
import { approvalStatement, cutoverPlanDigest, type ApprovalSignature } from '../../../src/domain/approvals';
import type { CutoverApproval, MigrationStatus } from '../../../src/domain/migration';
import {
  approveCutoverSignal,
  approveCutoverUpdate,
  approveWaveUpdate,
  cutoverPlanQuery,
  migrationStatusQuery,
  rejectCutoverUpdate,
  waveStatusQuery,
} from '../../../src/domain/messages';
import { REPO_ROOT } from '../../../src/paths';
import type { migrationWave } from '../../../workflows/migration-wave';
import { sign, whatIsSigned } from '../../../cli/signed-approval';
import { labWorkers, useMigrationLab } from '../../helpers/migration-lab';
import { makeKeys } from '../../helpers/ssh-keys';
import { devServerAddress } from '../../helpers/temporal';
import { until } from '../../helpers/wait';
import { readWaveOutcome } from '../../../lab/wave-result';

const run = promisify(execFile);
const temporal = path.join(REPO_ROOT, '.tools', 'bin', 'temporal');

describe('signed approvals: only a listed key, for this workflow and the plan shown, lets a cutover start', () => {
  jest.setTimeout(600_000);
  const { keys, remove } = makeKeys('alice', 'bob', 'mallory');
  afterAll(remove);
  const suite = useMigrationLab({
    migration: {
      approvals: 'signed',
      approvers: [
        { name: 'alice', key: keys.alice!.publicLine },
        { name: 'bob', key: keys.bob!.publicLine },
      ],
    },
  });

  /** An approval signed with `key` saying `by`, over the statement given. */
  async function signed(key: string, by: string, statement: Omit<ApprovalSignature, 'signature'>, reason = 'window 7') {
    const signature = await sshSign(key, approvalStatement('approve-cutover', by, reason, statement));
    return { by, reason, signed: { ...statement, signature } };
  }

  /** The validator's refusal of an approval, or 'accepted'. */
  async function refusal(
    handle: WorkflowHandle,
    approval: CutoverApproval,
    update: UpdateDefinition<unknown, [CutoverApproval]> = approveCutoverUpdate,
  ): Promise<string> {
    const err = await handle.executeUpdate(update, { args: [approval] }).then(
      () => undefined,
      (e: { cause?: { message?: string } }) => e,
    );
    return err ? String(err.cause?.message) : 'accepted';
  }

  it('refuses unsigned, unlisted-key, other-workflow and changed-plan approvals (nothing moves); takes a signed one, by hand and through the wave', async () => {
    const workers = await labWorkers(suite.temporal.nativeConnection, suite.lab.deps);
    const vsphere = suite.lab.deps.vsphere!;
    const power = async (name: string) =>
      (await vsphere.discover()).inventory.vms.find((v) => v.name === name)!.powerState;
    expect(await power('mig-web01')).toBe('poweredOn');
    await workers.run(async () => {
      const wave = await suite.temporal.client.workflow.start<typeof migrationWave>('migrationWave', {
        taskQueue: workers.taskQueue,
        workflowId: `${workers.taskQueue}-wave`,
        args: [{ waveId: workers.taskQueue, selection: { names: ['mig-web01', 'scale-0001', 'scale-0002'] } }],
      });
      const waiting = await until('every VM at the approval gate', async () => {
        const s = await wave.query(waveStatusQuery);
        return s.vms.length === 3 && s.vms.every((v) => v.stage === 'awaiting-approval') ? s : undefined;
      });
      const idOf = (name: string) => waiting.vms.find((v) => v.name === name)!.workflowId;
      const web01 = suite.temporal.client.workflow.getHandle(idOf('mig-web01'));
      const plan = (await web01.query(cutoverPlanQuery))!;
      const digest = cutoverPlanDigest(plan);
      const mine = { workflowId: web01.workflowId, plan: digest };

      expect(await refusal(web01, { by: 'alice', reason: 'window 7' })).toMatch(
        /^approvals are signed here: alice's approval has no signature/,
      );
      expect(await refusal(web01, await signed(keys.mallory!.file, 'alice', mine))).toBe(
        "the signature is not alice's: signed with another key",
      );
      expect(await refusal(web01, await signed(keys.mallory!.file, 'mallory', mine))).toMatch(
        /^mallory is not an approver/,
      );
      expect(
        await refusal(web01, await signed(keys.alice!.file, 'alice', { ...mine, workflowId: idOf('scale-0001') })),
      ).toBe(`signed for ${idOf('scale-0001')}, not for this workflow (${web01.workflowId})`);
      const changed = cutoverPlanDigest({ ...plan, disks: plan.disks.slice(1) });
      expect(await refusal(web01, await signed(keys.alice!.file, 'alice', { ...mine, plan: changed }))).toMatch(
        /^the plan changed since it was signed/,
      );
      // A forged "wave" approval by signal: it names a wave that is not this VM's, and is ignored.
      await web01.signal(
        approveCutoverSignal,
        await signed(keys.alice!.file, 'alice', { workflowId: 'another-wave', covers: [mine] }),
      );

      // The temporal CLI by hand: an unsigned approval is refused there too, the signed one taken.
      const byHand = (input: unknown) =>
        run(temporal, [
          'workflow',
          'update',
          'execute',
          '--address',
          devServerAddress(),
          '--workflow-id',
          web01.workflowId,
          '--name',
          approveCutoverUpdate.name,
          '--input',
          JSON.stringify(input),
        ]);
      await expect(byHand({ by: 'bob', reason: 'by hand' })).rejects.toMatchObject({
        stderr: expect.stringContaining('approvals are signed here'),
      });
      const before = (await web01.query(migrationStatusQuery)) as MigrationStatus;
      expect(before.stage).toBe('awaiting-approval');
      expect(before.actions.map((a) => a.kind)).not.toContain('shutdown');
      // Every refusal is on record with its reason, the refused updates as much as the ignored signal.
      expect(before.ignored).toEqual([
        { message: 'approve by alice (update)', reason: expect.stringContaining('has no signature') },
        { message: 'approve by alice (update)', reason: "the signature is not alice's: signed with another key" },
        { message: 'approve by mallory (update)', reason: 'mallory is not an approver (approvers: alice, bob)' },
        {
          message: 'approve by alice (update)',
          reason: expect.stringMatching(/^signed for .+, not for this workflow/),
        },
        {
          message: 'approve by alice (update)',
          reason: expect.stringContaining('the plan changed since it was signed'),
        },
        {
          message: 'approve by alice (signal)',
          reason: "signed for another-wave, not for this VM's wave (" + wave.workflowId + ')',
        },
        { message: 'approve by bob (update)', reason: expect.stringContaining("bob's approval has no signature") },
      ]);
      expect(await power('mig-web01')).toBe('poweredOn');
      await byHand(await signed(keys.bob!.file, 'bob', mine, 'by hand'));

      // The wave: signed over the VMs it covers and their plans, read as `ferry approve` reads them.
      const flags = { by: 'alice', reason: 'window 7', vms: ['scale-0001'], key: keys.alice!.file };
      const unsigned = await whatIsSigned(suite.temporal.client, wave, 'migrationWave', flags);
      expect(unsigned.statement.covers).toEqual([
        { workflowId: idOf('scale-0001'), plan: expect.stringMatching(/^sha256:/) },
      ]);
      const waveApproval = { by: 'alice', reason: 'window 7', signed: await sign(unsigned, flags) };
      const foreign = { ...waveApproval, signed: { ...waveApproval.signed, workflowId: 'another-wave' } };
      expect(await refusal(wave, foreign, approveWaveUpdate)).toMatch(/^the signature is not alice's/);
      expect(await refusal(wave, { by: 'alice', reason: 'all' }, approveWaveUpdate)).toMatch(
        /^approvals are signed here/,
      );
      await wave.executeUpdate(approveWaveUpdate, { args: [waveApproval] });
      await suite.temporal.client.workflow
        .getHandle(idOf('scale-0002'))
        .executeUpdate(rejectCutoverUpdate, { args: [{ by: 'alice', reason: 'not this time' }] });

      const result = await readWaveOutcome(suite.temporal.client, wave);
      const outcome = Object.fromEntries(result.status.vms.map((v) => [v.name, v.outcome]));
      expect(outcome).toEqual({ 'mig-web01': 'migrated', 'scale-0001': 'migrated', 'scale-0002': 'rejected' });
      const web01Result = (await web01.result()) as MigrationStatus;
      expect(web01Result.approval).toMatchObject({ by: 'bob', reason: 'by hand', via: 'update', signed: true });
      const scale = (await suite.temporal.client.workflow.getHandle(idOf('scale-0001')).result()) as MigrationStatus;
      expect(scale.approval).toMatchObject({ by: 'alice', reason: 'window 7', via: 'signal', signed: true });
    });
  });
});

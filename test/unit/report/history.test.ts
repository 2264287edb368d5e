import { joinRuns } from '../../../src/report';
import { rollbackUpdate } from '../../../src/domain/messages';
import { decodePayload, failureMessage } from '../../../src/report/history';
import { HistoryBuilder, recorded, recordedWaveId, recordedWorkflowId, T0 } from './history-builder';

describe('reading a workflow history for a report', () => {
  it('reads the recorded migrateVm history: stages in order, activities, the poll timer, the approval, the result', () => {
    const t = recorded('migrate-vm');
    expect(t.type).toBe('migrateVm');
    expect(t.state).toBe('completed');
    expect(t.stages.map((s) => s.stage)).toEqual([
      'validate',
      'networks',
      'shell',
      'relocate',
      'awaiting-approval',
      'shutdown',
      'import',
      'verify',
      'done',
    ]);
    expect(t.activities).toHaveLength(21);
    expect(
      t.activities.every((a) => a.outcome === 'completed' && a.startedAt !== undefined && a.closedAt! >= a.scheduledAt),
    ).toBe(true);
    expect(t.activities.filter((a) => a.name === 'importDisk').map((a) => (a.result as { slot: string }).slot)).toEqual(
      ['scsi0', 'scsi1'],
    );
    // The shell's visibility poll, then the lease renewals of the three permits (cancelled as each is released).
    expect(t.timers.map((x) => [x.durationMs, x.summary])).toEqual([
      [100, 'poll: VM 20074 visible cluster-wide'],
      [1500000, expect.stringMatching(/^renew the lease of a permit of \S+\.vmotion$/)],
      [14700000, expect.stringMatching(/^renew the lease of a permit of \S+\.import-local-lvm$/)],
      [14700000, expect.stringMatching(/^renew the lease of a permit of \S+\.import-local-lvm$/)],
    ]);
    expect(t.messages.find((m) => m.name === 'approveCutover')).toMatchObject({
      kind: 'signal',
      args: [{ by: 'alice' }],
    });
    expect(t.searchAttributes).toMatchObject({ VmName: 'mig-web01', VmId: 20074, FerryKind: 'migrate' });
    expect(t.result).toMatchObject({ vm: 'mig-web01', outcome: 'migrated' });
    expect(t.closedAt).toBeGreaterThan(t.startedAt);
  });

  it('reads the recorded wave: its children and its result', () => {
    const t = recorded('migration-wave');
    const waveWorkflowId = recordedWorkflowId('migration-wave');
    const vmWorkflowPrefix = recordedWorkflowId('migrate-vm').replace(/-\d+$/, '');
    expect(t.type).toBe('migrationWave');
    expect(t.children.map((c) => `${c.type} ${c.workflowId}`)).toEqual([
      `sdnSync ${waveWorkflowId}/sdn`,
      `migrateVm ${vmWorkflowPrefix}-74`,
      `migrateVm ${vmWorkflowPrefix}-121`,
    ]);
    expect(t.result).toMatchObject({ status: { waveId: recordedWaveId() } });
  });

  it('reads updates, retries with their last failure, failures with their causes, and a run still going', () => {
    const b = new HistoryBuilder().started('migrateVm');
    b.updated(1, rollbackUpdate.name, { by: 'bob', reason: 'guest broken' });
    b.activity('importDisk', 2, {
      startedAt: 5,
      attempt: 3,
      lastFailure: 'storage locked',
      failedAt: 9,
      failure: 'disk full',
    });
    b.activity('verifyGuest', 10, { startedAt: 10 });
    const t = b.read('w1');
    expect(t.state).toBe('running');
    expect(t.closedAt).toBeUndefined();
    expect(t.messages).toEqual([
      { kind: 'update', name: 'rollback', at: T0 + 1000, args: [{ by: 'bob', reason: 'guest broken' }] },
    ]);
    expect(t.activities[0]).toMatchObject({
      outcome: 'failed',
      attempt: 3,
      lastFailure: 'storage locked',
      failure: 'disk full',
      closedAt: T0 + 9000,
    });
    expect(t.activities[1]).toMatchObject({ outcome: 'running', startedAt: T0 + 10_000 });
    b.failed(12, 'cutover failed', 'disk full');
    expect(b.read('w1')).toMatchObject({
      state: 'failed',
      failure: 'cutover failed: disk full',
      closedAt: T0 + 12_000,
    });
  });

  it('skips payloads it cannot read (binary/null, encrypted) instead of failing', () => {
    const b64 = (s: string) => Buffer.from(s).toString('base64');
    expect(decodePayload({ metadata: { encoding: b64('binary/null') } })).toBeUndefined();
    expect(decodePayload({ metadata: { encoding: b64('binary/encrypted') }, data: b64('xx') })).toBeUndefined();
    expect(decodePayload({ metadata: { encoding: b64('json/plain') }, data: b64('{"a":1}') })).toEqual({ a: 1 });
    expect(failureMessage(undefined)).toBeUndefined();
    expect(failureMessage({ message: 'a', cause: { message: 'a', cause: { message: 'b' } } })).toBe('a: b');
  });

  it('joins the runs of a workflow that continued as new: from the first start to the last end', () => {
    const first = new HistoryBuilder().started('migrationWave', 0, { waveId: 'w' });
    first.add('EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED', 1, {
      workflowId: 'vm-a',
      workflowType: { name: 'migrateVm' },
    });
    first.add('EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW', 2, {});
    const second = new HistoryBuilder();
    second.add('EVENT_TYPE_WORKFLOW_EXECUTION_STARTED', 2, {
      workflowType: { name: 'migrationWave' },
      continuedExecutionRunId: 'run-1',
    });
    second.add('EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED', 3, {
      workflowId: 'vm-b',
      workflowType: { name: 'migrateVm' },
    });
    second.completed(4, { status: { waveId: 'w' } });
    expect(first.read('wave').state).toBe('continued-as-new');
    expect(second.read('wave').continuedFrom).toBe('run-1');
    const joined = joinRuns([first.read('wave'), second.read('wave')]);
    expect(joined).toMatchObject({ startedAt: T0, closedAt: T0 + 4000, state: 'completed', input: { waveId: 'w' } });
    expect(joined.continuedFrom).toBeUndefined();
    expect(joined.children.map((c) => c.workflowId)).toEqual(['vm-a', 'vm-b']);
    expect(() => joinRuns([])).toThrow(/no runs/);
  });
});

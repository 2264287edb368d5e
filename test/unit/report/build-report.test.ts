import { buildReport, renderHtml, renderMarkdown } from '../../../src/report';
import { refusalLine } from '../../../src/report/vm-events';
import { approveWaveUpdate, retryCutoverSignal, rollbackUpdate } from '../../../src/domain/messages';
import { HistoryBuilder, recorded, recordedWaveId, recordedWorkflowId, T0 } from './history-builder';

const NOW = T0 + 3_600_000;

describe('the report model, built from histories', () => {
  const wave = () => buildReport({ parent: recorded('migration-wave'), children: [recorded('migrate-vm')], now: NOW });

  it('gives a recorded wave one row per VM workflow, with a bar per stage and per permit wait', () => {
    const model = wave();
    expect(model).toMatchObject({
      kind: 'migration-wave',
      id: recordedWaveId(),
      workflowId: recordedWorkflowId('migration-wave'),
      state: 'completed',
    });
    expect(model.vms.map((vm) => [vm.name, vm.vmid, vm.outcome])).toEqual([['mig-web01', 20074, 'migrated']]);
    const vm = model.vms[0]!;
    expect(vm.bars.filter((b) => b.lane === 'stage').map((b) => b.label)).toEqual([
      'validate',
      'networks',
      'shell',
      'vMotion',
      'approval',
      'shutdown',
      'import',
      'verify',
    ]);
    // Each stage ends where the next begins; the last where the next (final) stage mark is.
    const stages = vm.bars.filter((b) => b.lane === 'stage');
    for (let i = 1; i < stages.length; i++) expect(stages[i]!.start).toBe(stages[i - 1]!.end);
    expect(vm.bars.filter((b) => b.category === 'permit').map((b) => `${b.label} (${b.detail})`)).toEqual([
      'permit vmotion (relocate mig-web01)',
      'permit import-local-lvm (import mig-web01 scsi0)',
      'permit import-local-lvm (import mig-web01 scsi1)',
    ]);
    // The vMotion permit was granted 76 ms after it was asked for (the permitGranted signal).
    const vmotion = vm.bars.find((b) => b.label === 'permit vmotion')!;
    expect(vmotion.end - vmotion.start).toBe(76);
    expect(vm.bars.every((b) => !b.open && b.end >= b.start)).toBe(true);
  });

  it('measures downtime from the shutdown to the end, and counts imported bytes over time', () => {
    const model = wave();
    expect(model.vms[0]!.downtimeMs).toBe(1138);
    expect(model.vms[0]!.downtimeFrom).toBe(model.vms[0]!.bars.find((b) => b.label === 'shutdown')!.start);
    expect(model.vms[0]!.importedBytes).toBe(20 * 2 ** 30 + 50 * 2 ** 30);
    expect(model.throughput.map((p) => [p.vmsDone, p.bytesImported / 2 ** 30])).toEqual([
      [0, 0],
      [0, 20],
      [0, 70],
      [1, 70],
    ]);
    expect(model.totals).toMatchObject({
      vms: 1,
      outcomes: { migrated: 1 },
      refused: 1,
      approvals: 1,
      failures: 0,
      bytesImported: 70 * 2 ** 30,
      durationMs: 4890,
    });
    expect(model.totals.downtime).toEqual({ count: 1, totalMs: 1138, maxMs: 1138, medianMs: 1138 });
  });

  it("lists refusals with their reasons, and the wave approval once (not again as each VM's copy of it)", () => {
    const model = wave();
    expect(model.refusals).toEqual([
      { vm: 'mig-snap01', reasons: [expect.stringMatching(/^mig-snap01 has snapshots; consolidate/)] },
    ]);
    expect(model.approvals).toEqual([
      {
        decision: 'approve',
        by: 'alice',
        reason: 'recorded for the replay test',
        at: expect.any(Number),
        via: 'update',
        signed: false,
        vms: 'all',
      },
    ]);
    expect(model.vms[0]!.marks).toEqual([{ kind: 'approval', at: expect.any(Number), label: 'approved by alice' }]);
  });

  it('builds a provision batch from provisionPlanned and provisionVm histories', () => {
    const model = buildReport({ parent: recorded('provision-planned'), children: [recorded('provision')], now: NOW });
    expect(model).toMatchObject({ kind: 'provision-batch', id: 'provision-planned-recorded', state: 'completed' });
    expect(model.vms[0]).toMatchObject({ name: 'vm-a3a79475', vmid: 9100, outcome: 'provisioned', importedBytes: 0 });
    expect(model.vms[0]!.downtimeMs).toBeUndefined();
    expect(model.vms[0]!.bars.filter((b) => b.lane === 'stage').map((b) => b.label)).toEqual([
      'resolve',
      'vmid',
      'check',
      'preflight',
      'create',
      'hardware',
      'netbox',
      'address',
      'dns',
      'handover',
      'boot',
    ]);
    expect(model.totals.downtime.count).toBe(0);
  });

  it('draws a running VM as far as it got: unknown stages as `other`, open bars and waits until now', () => {
    const vm = new HistoryBuilder()
      .started('migrateVm')
      .attribute(0, { VmName: 'web9' })
      .stage(1, 'shutdown')
      .stage(2, 'awaiting-window-2099');
    vm.activity('requestPermit', 3, {
      startedAt: 3,
      completedAt: 3.1,
      input: { key: 'q.import-local-lvm', taskQueue: 'q', request: { requestId: 'r1', label: 'import web9 scsi0' } },
    });
    const parent = new HistoryBuilder().started('migrationWave', 0, { waveId: 'night' });
    const model = buildReport({
      parent: parent.read('wave-night'),
      children: [vm.read('migrate-web9')],
      parentStatus: {
        refused: [{ name: 'dmz1', refusals: [{ subject: 'Network adapter 1', reason: 'PG-PVLAN has no VNet' }] }],
      },
      now: T0 + 60_000,
    });
    expect(model).toMatchObject({
      id: 'night',
      state: 'running',
      totals: { durationMs: 60_000, outcomes: { running: 1 } },
    });
    const row = model.vms[0]!;
    expect(row).toMatchObject({ name: 'web9', state: 'running', downtimeMs: 59_000, downtimeOpen: true });
    expect(row.outcome).toBeUndefined();
    expect(model.refusals).toEqual([{ vm: 'dmz1', reasons: ['Network adapter 1: PG-PVLAN has no VNet'] }]);
    // A reason that names its subject already is not prefixed with it again.
    expect(refusalLine('legacy01', { subject: 'Hard disk 1', reason: 'Hard disk 1 is on LocalDS_0' })).toBe(
      'Hard disk 1 is on LocalDS_0',
    );
    expect(row.bars).toEqual([
      { lane: 'stage', label: 'shutdown', category: 'shutdown', start: T0 + 1000, end: T0 + 2000, open: false },
      {
        lane: 'stage',
        label: 'awaiting-window-2099',
        category: 'other',
        start: T0 + 2000,
        end: T0 + 60_000,
        open: true,
      },
      {
        lane: 'wait',
        label: 'permit import-local-lvm',
        category: 'permit',
        start: T0 + 3000,
        end: T0 + 60_000,
        open: true,
        detail: 'import web9 scsi0',
      },
    ]);
  });

  it('says what an overlay VM copied: nothing imported while down, its disks moved live after the boot', () => {
    const GiB = 2 ** 30;
    const vm = new HistoryBuilder().started('migrateVm').attribute(0, { VmName: 'ov1' }).stage(1, 'shutdown');
    vm.stage(2, 'import').activity('attachDisk', 2, { startedAt: 2, completedAt: 2.1, result: { attached: true } });
    vm.stage(3, 'start').stage(5, 'move');
    vm.activity('moveDisk', 5, {
      startedAt: 5,
      completedAt: 9,
      result: { slot: 'scsi0', bytes: 8 * GiB, alreadyMoved: false },
    });
    vm.activity('moveDisk', 9, {
      startedAt: 9,
      completedAt: 9.2,
      result: { slot: 'scsi1', bytes: 4 * GiB, alreadyMoved: true },
    });
    vm.stage(10, 'migrated').completed(10, { vm: 'ov1', outcome: 'migrated' });
    const parent = new HistoryBuilder().started('migrationWave', 0, { waveId: 'ov' });
    const model = buildReport({ parent: parent.read('wave-ov'), children: [vm.read('migrate-ov1')], now: T0 + 20_000 });
    // scsi1 was found moved already (an earlier run's move): it carried nothing now.
    expect(model.vms[0]).toMatchObject({ importedBytes: 0, movedLiveBytes: 8 * GiB });
    expect(model.totals).toMatchObject({ bytesImported: 0, bytesMovedLive: 8 * GiB });
    expect(model.throughput.map((p) => [p.vmsDone, p.bytesImported, p.bytesMovedLive / GiB])).toEqual([
      [0, 0, 0],
      [0, 0, 8],
      [1, 0, 8],
    ]);
    const html = renderHtml(model);
    expect(html).toContain('8.0 GiB moved live after the boot');
    expect(html).not.toContain('>1 B<'); // the chart's bytes axis is scaled to what moved, not to nothing
    expect(renderMarkdown(model)).toContain('- disks copied: 8.0 GiB moved live after the boot');
  });

  it("draws an activity that sat on its task queue as a wait, not as the VM's work", () => {
    const vm = new HistoryBuilder().started('migrateVm').attribute(0, { VmName: 'q1' }).stage(1, 'shutdown');
    vm.stage(2, 'import');
    vm.activity('createOverlays', 2, { startedAt: 6, completedAt: 6.5, result: {} }); // 4 s on its queue
    vm.activity('attachDisk', 7, { startedAt: 7.2, completedAt: 7.5, result: {} }); // taken at once
    vm.activity('convertGuest', 8, { startedAt: 30, attempt: 2, completedAt: 31, result: {} }); // a retry: not a queue wait
    vm.activity('moveDisk', 40); // still waiting for a worker
    const parent = new HistoryBuilder().started('migrationWave', 0, { waveId: 'q' });
    const model = buildReport({ parent: parent.read('wave-q'), children: [vm.read('migrate-q1')], now: T0 + 50_000 });
    expect(model.vms[0]!.bars.filter((b) => b.category === 'queue')).toEqual([
      expect.objectContaining({ label: 'queued createOverlays', start: T0 + 2000, end: T0 + 6000, open: false }),
      expect.objectContaining({ label: 'queued moveDisk', start: T0 + 40_000, end: T0 + 50_000, open: true }),
    ]);
  });

  it('lists failures with the decisions taken after each: retries, a failed activity, a rollback sent while running', () => {
    const vm = new HistoryBuilder().started('migrateVm').attribute(0, { VmName: 'db1' }).stage(1, 'import');
    vm.activity('importDisk', 1, {
      startedAt: 4,
      attempt: 2,
      lastFailure: 'storage locked',
      failedAt: 6,
      failure: 'disk full',
    });
    vm.stage(6, 'awaiting-decision')
      .signalled(8, retryCutoverSignal.name, { by: 'carol', reason: 'freed space' })
      .updated(20, rollbackUpdate.name, { by: 'carol', reason: 'still full' });
    const parent = new HistoryBuilder().started('migrationWave', 0, { waveId: 'w' });
    const model = buildReport({ parent: parent.read('wave-w'), children: [vm.read('migrate-db1')], now: T0 + 30_000 });
    expect(model.failures).toEqual([
      { vm: 'db1', at: T0 + 4000, what: 'importDisk retried (attempt 2)', message: 'storage locked', decisions: [] },
      {
        vm: 'db1',
        at: T0 + 6000,
        what: 'importDisk failed',
        message: 'disk full',
        decisions: [
          { decision: 'retry', by: 'carol', reason: 'freed space', at: T0 + 8000, via: 'signal', signed: false },
          { decision: 'rollback', by: 'carol', reason: 'still full', at: T0 + 20_000, via: 'update', signed: false },
        ],
      },
    ]);
    expect(model.vms[0]!.marks.map((m) => `${m.kind} ${m.label}`)).toEqual([
      'failure importDisk retried (attempt 2): storage locked',
      'failure importDisk failed: disk full',
      'decision retry by carol',
      'decision rollback by carol',
    ]);
    expect(model.totals.failures).toBe(2);
  });

  it("reads recorded decisions, a failed guest check and a rejection from a finished VM's result", () => {
    const vm = new HistoryBuilder()
      .started('migrateVm')
      .stage(0, 'shutdown')
      .stage(5, 'verify-guest')
      .stage(9, 'rolled-back');
    vm.completed(10, {
      vm: 'app1',
      outcome: 'rolled-back',
      verification: {
        state: 'failed',
        checks: [{ check: 'address', result: 'failed', at: T0 + 8000, detail: '10.0.0.5 is on no interface' }],
      },
      decisions: [{ decision: 'rollback', by: 'ferry', reason: 'verify.onFailure', at: T0 + 8500, via: 'setting' }],
    });
    const rejected = new HistoryBuilder().started('migrateVm').stage(0, 'awaiting-approval').stage(3, 'rejected');
    rejected.completed(3, {
      vm: 'app2',
      outcome: 'rejected',
      rejection: { by: 'dave', reason: 'not tonight', at: T0 + 3000, via: 'update' },
    });
    const parent = new HistoryBuilder()
      .started('migrationWave', 0, { waveId: 'w' })
      .completed(11, { status: { waveId: 'w', refused: [], approvals: [] } });
    const model = buildReport({
      parent: parent.read('wave-w'),
      children: [vm.read('m-app1'), rejected.read('m-app2')],
      now: NOW,
    });
    expect(model.vms.map((v) => [v.name, v.outcome, v.downtimeMs])).toEqual([
      ['app1', 'rolled-back', 9000],
      ['app2', 'rejected', undefined],
    ]);
    expect(model.failures).toEqual([
      {
        vm: 'app1',
        at: T0 + 8000,
        what: 'guest verification failed',
        message: '10.0.0.5 is on no interface',
        decisions: [{ decision: 'rollback', by: 'ferry', reason: 'verify.onFailure', at: T0 + 8500, via: 'setting' }],
      },
    ]);
    expect(model.approvals).toEqual([
      {
        decision: 'reject',
        by: 'dave',
        reason: 'not tonight',
        at: T0 + 3000,
        via: 'update',
        signed: false,
        vms: ['app2'],
      },
    ]);
    expect(model.throughput.map((p) => p.vmsDone)).toEqual([0]);
  });

  it('lists the approvals sent to a running wave that did not answer its status query', () => {
    const parent = new HistoryBuilder().started('migrationWave', 0, { waveId: 'w' });
    parent.updated(5, approveWaveUpdate.name, { by: 'erin', reason: 'change 4711', vms: ['db1'] });
    const model = buildReport({ parent: parent.read('wave-w'), children: [], now: T0 + 10_000 });
    expect(model.approvals).toEqual([
      {
        decision: 'approve',
        by: 'erin',
        reason: 'change 4711',
        at: T0 + 5000,
        via: 'update',
        signed: false,
        vms: ['db1'],
      },
    ]);
  });

  it('lists the messages the wave and each VM heard and ignored, with why, and counts them', () => {
    const vm = new HistoryBuilder().started('migrateVm').stage(0, 'awaiting-approval').stage(4, 'shutdown');
    vm.completed(5, {
      vm: 'web01',
      outcome: 'migrated',
      ignored: [{ message: 'approve by mallory', reason: 'mallory is not an approver' }],
    });
    const parent = new HistoryBuilder().started('migrationWave', 0, { waveId: 'w' }).completed(6, {
      status: {
        waveId: 'w',
        refused: [],
        approvals: [],
        ignored: [{ message: 'approve by bob', reason: 'approvals are signed here: bob sent none' }],
      },
    });
    const model = buildReport({ parent: parent.read('wave-w'), children: [vm.read('m-web01')], now: NOW });
    expect(model.ignored).toEqual([
      { message: 'approve by bob', reason: 'approvals are signed here: bob sent none' },
      { vm: 'web01', message: 'approve by mallory', reason: 'mallory is not an approver' },
    ]);
    expect(model.totals.ignored).toBe(2);
  });

  it('lists two separate approvals with the same approver and reason as two, and says which were signed', () => {
    const approved = (name: string, at: number, signed?: true) => {
      const vm = new HistoryBuilder().started('migrateVm').stage(0, 'awaiting-approval').stage(at, 'shutdown');
      vm.completed(at + 1, {
        vm: name,
        outcome: 'migrated',
        approval: {
          by: 'alice',
          reason: 'change 42',
          at: T0 + at * 1000,
          via: 'update',
          ...(signed ? { signed } : {}),
        },
      });
      return vm.read(`m-${name}`);
    };
    const parent = new HistoryBuilder()
      .started('migrationWave', 0, { waveId: 'w' })
      .completed(20, { status: { waveId: 'w', refused: [], approvals: [] } });
    const model = buildReport({
      parent: parent.read('wave-w'),
      children: [approved('web01', 3, true), approved('web02', 9), approved('web03', 9)],
      now: NOW,
    });
    expect(model.approvals.map((a) => [a.at, a.signed, a.vms])).toEqual([
      [T0 + 3000, true, ['web01']],
      [T0 + 9000, false, ['web02', 'web03']],
    ]);
  });

  it('draws back-to-back polls as one wait, and a timer far from them as its own', () => {
    const vm = new HistoryBuilder().started('migrateVm').stage(0, 'verify-guest');
    for (const [id, start] of [
      [1, 1],
      [2, 6.5],
      [3, 12],
      [4, 40],
    ] as const) {
      vm.add('EVENT_TYPE_TIMER_STARTED', start, { timerId: String(id), startToFireTimeout: '5s' });
      vm.add('EVENT_TYPE_TIMER_FIRED', start + 5, { timerId: String(id) });
    }
    const model = buildReport({
      parent: new HistoryBuilder().started('migrationWave').read('w'),
      children: [vm.read('m')],
      now: T0 + 60_000,
    });
    expect(
      model.vms[0]!.bars.filter((b) => b.lane === 'wait').map((b) => [
        b.label,
        (b.start - T0) / 1000,
        (b.end - T0) / 1000,
      ]),
    ).toEqual([
      ['polling (3 timers)', 1, 17],
      ['timer 5 s', 40, 45],
    ]);
  });

  it('refuses a workflow that is neither a wave nor a provision batch, naming it', () => {
    expect(() => buildReport({ parent: recorded('migrate-vm'), children: [], now: NOW })).toThrow(
      `${recordedWorkflowId('migrate-vm')} is a migrateVm workflow: a report covers a migration wave (migrationWave) or a provision batch (provisionPlanned)`,
    );
  });
});

import {
  ATTENTION_STAGES,
  summarizeWave,
  summaryFromVisibleCounts,
  VISIBLE_STAGES,
  waveFromVisibility,
  waveSummarySchema,
  type VisibleVmWorkflow,
} from '../../../../src/domain/status';

const wf = (i: number, extra: Partial<VisibleVmWorkflow>): VisibleVmWorkflow => ({
  workflowId: `migrate-vc1-vm-${i}`,
  running: true,
  startMs: 1000 + i,
  ...extra,
});

describe('waveFromVisibility', () => {
  it('takes each VM workflow with its stage; a closed one with the outcome its final stage names', () => {
    const status = waveFromVisibility('w1', [
      wf(1, { vmName: 'web01', stage: 'awaiting-approval' }),
      wf(2, { vmName: 'web02', stage: 'done', running: false, closeMs: 5000 }),
      wf(3, { stage: 'rolled-back', running: false }),
      wf(4, { vmName: 'web04', stage: 'import', running: false }),
      wf(5, {}),
    ]);
    expect(status.waveId).toBe('w1');
    expect(status.vms.map((v) => [v.moid, v.name, v.state, v.stage, v.outcome])).toEqual([
      ['vm-1', 'web01', 'running', 'awaiting-approval', undefined],
      ['vm-2', 'web02', 'finished', 'done', 'migrated'],
      ['vm-3', 'vm-3', 'finished', 'rolled-back', 'rolled-back'],
      ['vm-4', 'web04', 'finished', 'import', undefined],
      ['vm-5', 'vm-5', 'running', undefined, undefined],
    ]);
    // Closed in a stage that is no outcome: failed, and the row says where to look.
    expect(status.vms[3]!.error).toBe('workflow closed in stage import (see ferry status migrate-vc1-vm-4)');
    expect(status.vms[1]).toMatchObject({ startedAt: 1002, finishedAt: 5000 });
  });

  it('counts a rerun VM once: its running run, else the latest', () => {
    const status = waveFromVisibility('w1', [
      wf(1, { stage: 'rolled-back', running: false, startMs: 10 }),
      wf(1, { stage: 'relocate', running: true, startMs: 20 }),
      wf(2, { stage: 'rejected', running: false, startMs: 30 }),
      wf(2, { stage: 'done', running: false, startMs: 40 }),
      wf(2, { stage: 'refused', running: false, startMs: 35 }),
    ]);
    expect(status.vms.map((v) => [v.moid, v.state, v.stage])).toEqual([
      ['vm-1', 'running', 'relocate'],
      ['vm-2', 'finished', 'done'],
    ]);
  });

  it('summarizes like the wave does: counts per stage and outcome, rows that need a person first', () => {
    const workflows = Array.from({ length: 1000 }, (_, i) =>
      wf(i, { vmName: `vm${i}`, stage: i % 10 === 0 ? 'relocate' : 'awaiting-approval' }),
    );
    const summary = summarizeWave(waveFromVisibility('w1', workflows), { now: 0 }, { limit: 25 });
    expect(waveSummarySchema.parse({ ...summary, source: 'visibility' })).toMatchObject({ source: 'visibility' });
    expect(summary.counts).toEqual({ pending: 0, running: 1000, finished: 0 });
    expect(summary.stages).toEqual({ relocate: 100, 'awaiting-approval': 900 });
    expect(summary.rows).toHaveLength(25);
    expect(summary.rows.every((r) => r.attention === 'awaiting-approval')).toBe(true);
    expect(summary.page.matching).toBe(1000);
  });
});

describe('summaryFromVisibleCounts', () => {
  const counts = {
    running: 950,
    closed: 50,
    attention: 903,
    stages: {
      relocate: { running: 40, closed: 0 },
      'awaiting-approval': { running: 900, closed: 0 },
      done: { running: 0, closed: 45 },
      'rolled-back': { running: 0, closed: 2 },
      import: { running: 0, closed: 1 },
      shell: { running: 0, closed: 0 },
    },
  };

  it('takes counts per stage and outcome from visibility, the rows from one page (those needing a person first)', () => {
    const rows = [
      wf(1, { stage: 'relocate' }),
      wf(2, { stage: 'awaiting-approval' }),
      wf(3, { stage: 'rolled-back', running: false, closeMs: 9 }),
    ];
    const summary = summaryFromVisibleCounts(
      summarizeWave(waveFromVisibility('w1', rows), { now: 123 }, { limit: 2 }),
      counts,
      { limit: 2 },
    );
    expect(waveSummarySchema.parse(summary)).toMatchObject({ source: 'visibility', waveId: 'w1', at: 123, vms: 1000 });
    expect(summary.counts).toEqual({ pending: 0, running: 950, finished: 50 });
    // 10 running and 2 closed VMs without a stage yet: under `running` and `finished`.
    expect(summary.stages).toEqual({
      relocate: 40,
      'awaiting-approval': 900,
      done: 45,
      'rolled-back': 2,
      import: 1,
      running: 10,
      finished: 2,
    });
    expect(summary.outcomes).toEqual({ migrated: 45, 'rolled-back': 2, failed: 3 });
    expect(summary.rows.map((r) => r.moid)).toEqual(['vm-3', 'vm-2']);
    expect(summary.page).toEqual({ offset: 0, limit: 2, matching: 1000, filter: 'all' });
  });

  it("counts the attention filter's matches from visibility too", () => {
    const rows = [wf(2, { stage: 'awaiting-approval' })];
    const summary = summaryFromVisibleCounts(
      summarizeWave(waveFromVisibility('w1', rows), { now: 0 }, { filter: 'attention' }),
      counts,
      { filter: 'attention' },
    );
    expect(summary.page.matching).toBe(903);
    expect(summary.rows).toHaveLength(1);
  });

  it('knows every stage, and the waits that need a person', () => {
    expect(VISIBLE_STAGES).toHaveLength(22);
    expect([...ATTENTION_STAGES.running].sort()).toEqual(['awaiting-approval', 'awaiting-decision', 'awaiting-window']);
  });
});

import { summarizeWave, waveFromVisibility, waveSummarySchema, type VisibleVmWorkflow } from '../../../../src/domain/status';

const wf = (i: number, extra: Partial<VisibleVmWorkflow>): VisibleVmWorkflow => ({ workflowId: `migrate-vc1-vm-${i}`, running: true, startMs: 1000 + i, ...extra });

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
    const workflows = Array.from({ length: 1000 }, (_, i) => wf(i, { vmName: `vm${i}`, stage: i % 10 === 0 ? 'relocate' : 'awaiting-approval' }));
    const summary = summarizeWave(waveFromVisibility('w1', workflows), { now: 0 }, { limit: 25 });
    expect(waveSummarySchema.parse({ ...summary, source: 'visibility' })).toMatchObject({ source: 'visibility' });
    expect(summary.counts).toEqual({ pending: 0, running: 1000, finished: 0 });
    expect(summary.stages).toEqual({ relocate: 100, 'awaiting-approval': 900 });
    expect(summary.rows).toHaveLength(25);
    expect(summary.rows.every((r) => r.attention === 'awaiting-approval')).toBe(true);
    expect(summary.page.matching).toBe(1000);
  });
});

import { newWaveStatus, type WaveStatus, type WaveVm } from '../../../../src/domain/migration';
import { summarizeWave, WAVE_ROWS_MAX, waveSummarySchema } from '../../../../src/domain/status';

const GiB = 1024 ** 3;

function vm(i: number, extra: Partial<WaveVm>): WaveVm {
  return {
    moid: `vm-${i}`,
    name: `web${String(i).padStart(4, '0')}`,
    workflowId: `migrate-vc-vm-${i}`,
    state: 'pending',
    bytes: 10 * GiB,
    ...extra,
  };
}

function wave(vms: WaveVm[]): WaveStatus {
  return { ...newWaveStatus('w1'), stage: 'migrating', vms };
}

describe('summarizeWave', () => {
  const status = wave([
    vm(1, { state: 'finished', stage: 'done', outcome: 'migrated', finishedAt: 50 }),
    vm(2, { state: 'running', stage: 'import', stageAt: 10 }),
    vm(3, { state: 'running', stage: 'awaiting-approval', stageAt: 5 }),
    vm(4, { state: 'finished', stage: 'import', error: 'import failed', finishedAt: 40 }),
    vm(5, {}),
    vm(6, { state: 'running', stage: 'awaiting-decision', stageAt: 20, error: 'verify failed' }),
  ]);

  it('counts per state, stage and outcome; rows that need a person first', () => {
    const s = summarizeWave(status, { now: 100, limits: { vmotion: 2, importPerStorage: 1 } });
    expect(waveSummarySchema.parse(s)).toEqual(s);
    expect(s.counts).toEqual({ pending: 1, running: 3, finished: 2 });
    expect(s.stages).toEqual({ done: 1, import: 2, 'awaiting-approval': 1, pending: 1, 'awaiting-decision': 1 });
    expect(s.outcomes).toEqual({ migrated: 1, failed: 1 });
    expect(s.rows.map((r) => [r.name, r.attention])).toEqual([
      ['web0004', 'failed'],
      ['web0006', 'failed'],
      ['web0003', 'awaiting-approval'],
      ['web0002', undefined],
      ['web0001', undefined],
      ['web0005', undefined],
    ]);
    expect(s.rows[2]).toMatchObject({ stage: 'awaiting-approval', stageSince: 5 });
    expect(s.eta.waitingForPeople).toBe(2);
  });

  it('pages, and filters to the VMs needing attention', () => {
    const page = summarizeWave(status, { now: 100 }, { offset: 2, limit: 2 });
    expect(page.rows.map((r) => r.name)).toEqual(['web0003', 'web0002']);
    expect(page.page).toEqual({ offset: 2, limit: 2, matching: 6, filter: 'all' });
    const attention = summarizeWave(status, { now: 100 }, { filter: 'attention' });
    expect(attention.rows.map((r) => r.name)).toEqual(['web0004', 'web0006', 'web0003']);
    expect(attention.page.matching).toBe(3);
  });

  it('the measured vMotion rate comes from the totals the wave adds up as its VMs finish', () => {
    const s = summarizeWave(
      {
        ...wave([vm(1, { state: 'finished', stage: 'done', outcome: 'migrated' }), vm(2, {})]),
        relocateTotals: { bytes: 20 * GiB, seconds: 10 },
      },
      { now: 0, limits: { vmotion: 1, importPerStorage: 1 } },
    );
    expect(s.throughput.relocateBytesPerSecond).toBe(2 * GiB);
  });

  it('stays small and quick at 1,000 VMs: the answer is bounded by the page', () => {
    const big = wave(
      Array.from({ length: 1000 }, (_, i) =>
        vm(
          i,
          i % 3 === 0
            ? { state: 'running', stage: 'awaiting-approval', stageAt: i }
            : {
                state: 'finished',
                stage: 'done',
                outcome: 'migrated',
                finishedAt: i,
              },
        ),
      ),
    );
    const started = performance.now();
    const s = summarizeWave(big, { now: 0 }, { limit: WAVE_ROWS_MAX });
    const ms = performance.now() - started;
    const bytes = JSON.stringify(s).length;
    console.log(
      `summary of 1,000 VMs: ${ms.toFixed(1)} ms, ${bytes} bytes with ${s.rows.length} rows; the full status: ${JSON.stringify(big).length} bytes`,
    );
    expect(s.rows).toHaveLength(WAVE_ROWS_MAX);
    expect(bytes).toBeLessThan(64 * 1024);
    expect(() => summarizeWave(big, { now: 0 }, { limit: WAVE_ROWS_MAX + 1 })).not.toThrow();
  });
});

import { stageSeconds, type StageTiming } from '../../../../src/domain/migration';

describe('stageSeconds', () => {
  const timings: StageTiming[] = [
    { stage: 'validate', startedAt: 1_000, endedAt: 1_500 },
    { stage: 'relocate', startedAt: 1_500, endedAt: 4_750 },
    { stage: 'import', startedAt: 4_750 },
  ];

  it('is how long an ended stage took, in seconds', () => {
    expect(stageSeconds(timings, 'relocate')).toBe(3.25);
    expect(stageSeconds(timings, 'validate')).toBe(0.5);
  });

  it('is undefined for a stage still running, one that never ran, and no timings at all', () => {
    expect(stageSeconds(timings, 'import')).toBeUndefined();
    expect(stageSeconds(timings, 'networks')).toBeUndefined();
    expect(stageSeconds(undefined, 'relocate')).toBeUndefined();
  });
});

import { rerunDecision } from '../../../../src/domain/migration';

describe('rerunDecision: when a wave may start a VM migration again under its workflow id', () => {
  const id = 'migrate-vc-vm-42';

  it('never while the earlier run is still going', () => {
    expect(rerunDecision({ status: 'RUNNING' }, id)).toEqual({
      rerun: false,
      reason: expect.stringContaining('already migrating'),
    });
  });

  it('never once a run has migrated the VM', () => {
    expect(rerunDecision({ status: 'COMPLETED', outcome: 'migrated' }, id)).toEqual({
      rerun: false,
      reason: expect.stringContaining('already migrated'),
    });
  });

  it.each(['refused', 'rejected', 'approval-expired', 'rolled-back'] as const)(
    'after a run that ended %s',
    (outcome) => {
      expect(rerunDecision({ status: 'COMPLETED', outcome }, id)).toEqual({ rerun: true });
    },
  );

  it.each(['FAILED', 'CANCELLED', 'TERMINATED', 'TIMED_OUT', 'NOT_FOUND'])('after a run that closed %s', (status) => {
    expect(rerunDecision({ status }, id)).toEqual({ rerun: true });
  });

  it('names the workflow in its reason', () => {
    const decision = rerunDecision({ status: 'RUNNING' }, id);
    expect(decision.rerun === false && decision.reason).toContain(id);
  });
});

import { planFromRecord, recordSideOf, type Baseline } from '../../../../src/domain/change';
import { DEFAULTS, RECORD, policy, provisionedConfig, reality, specOf } from './fixtures';

/** The one chain from a NetBox record to a change plan: changeVm, `ferry plan --change` and the drift report. */
describe('a change plan from a NetBox record (src/domain/change/plan-record.ts)', () => {
  const settings = { defaults: DEFAULTS, policy: policy() };
  const asBuilt = reality(provisionedConfig(specOf(RECORD)));

  it('reads the stored baseline, none, or says why it cannot', () => {
    const baseline: Baseline = { version: 1, applied: { memory: '2048' }, accepted: {} };
    expect(recordSideOf(RECORD, baseline)).toEqual({ record: RECORD, baseline });
    expect(recordSideOf(RECORD, undefined)).toEqual({ record: RECORD });
    expect(recordSideOf(RECORD, null)).toEqual({ record: RECORD });
    const broken = recordSideOf(RECORD, { version: 7 });
    expect(broken.baseline).toBeUndefined();
    expect(broken.baselineProblem).toMatch(/ferry_applied|version/);
  });

  it('plans through provisioning’s own translation: the VM as built plans to nothing, an edit to its change', () => {
    expect(planFromRecord({ record: RECORD }, asBuilt, settings)).toEqual({
      plan: expect.objectContaining({ changes: [] }),
    });
    const edited = planFromRecord({ record: { ...RECORD, memoryMB: 4096 } }, asBuilt, settings);
    expect('plan' in edited && edited.plan.changes.map((c) => c.id)).toEqual(['memory']);
  });

  it('a baseline it cannot read is ignored, and the plan says so', () => {
    const planned = planFromRecord(recordSideOf(RECORD, { version: 7 }), asBuilt, settings);
    expect('plan' in planned && planned.plan.notes).toEqual([
      expect.stringMatching(/: it is ignored \(every difference counts as NetBox's\)$/),
    ]);
  });

  it('a record provisioning could not build is refused with the same problems', () => {
    const planned = planFromRecord({ record: { ...RECORD, memoryMB: 0 } }, asBuilt, settings);
    expect(planned).toEqual({ problems: [expect.stringMatching(/memory/i)] });
  });
});

import { ignoredDetails, runDetails } from '../../../src/domain/vm-run';

describe("a VM run's current details in the Temporal UI", () => {
  const at = Date.UTC(2026, 11, 6, 3, 4, 5);

  it('says the stage, and what the run waits for since when', () => {
    expect(runDetails('lab-web1', { stage: 'shell' })).toBe('lab-web1: shell');
    expect(runDetails('lab-web1', { stage: 'awaiting-approval', waiting: { for: 'a person', since: at } })).toBe(
      'lab-web1: awaiting-approval; waiting for a person since 03:04:05 UTC',
    );
  });

  it('says a decision it did not act on, so an ignored approval does not pass for any other signal', () => {
    const ignored = [
      { message: 'approve by mallory (signal)', reason: 'mallory is not an approver (approvers: alice)' },
    ];
    expect(runDetails('lab-web1', { stage: 'awaiting-approval', ignored })).toBe(
      'lab-web1: awaiting-approval; ignored: approve by mallory (signal): mallory is not an approver (approvers: alice)',
    );
  });

  it('counts several and shows the last', () => {
    expect(
      ignoredDetails([
        { message: 'approve by mallory (signal)', reason: 'not an approver' },
        { message: 'reject by bob (update)', reason: 'the change is not waiting for a decision (stage apply)' },
      ]),
    ).toBe('; 2 ignored, the last: reject by bob (update): the change is not waiting for a decision (stage apply)');
    expect(ignoredDetails([])).toBe('');
  });
});

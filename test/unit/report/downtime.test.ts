import type { WorkflowTimeline } from '../../../src/report/history';
import { downtimeOf } from '../../../src/report/vm-timeline';

/** A run's stage marks, in the order written: `{ shutdown: 1000, start: 2000 }`. */
function timeline(stages: Record<string, number>, extra: Partial<WorkflowTimeline> = {}): WorkflowTimeline {
  return {
    workflowId: 'migrate-vc-vm-1',
    type: 'migrateVm',
    startedAt: 0,
    state: 'completed',
    stages: Object.entries(stages).map(([stage, at]) => ({ stage, at })),
    activities: [],
    timers: [],
    messages: [],
    children: [],
    searchAttributes: {},
    ...extra,
  } as WorkflowTimeline;
}

describe("a VM's downtime in the report", () => {
  it("is the workflow's own measure when it proved the guest up", () => {
    const t = timeline(
      { shutdown: 1000, start: 3000, 'verify-guest': 4000, done: 9000 },
      {
        closedAt: 9000,
        result: { verification: { downtimeSeconds: 12.5 } },
      },
    );
    expect(downtimeOf(t, 10_000)).toEqual({ from: 1000, ms: 12_500, open: false });
  });

  it('ends with the start for a VM not checked: the live move of an overlay cutover comes after, with the VM up', () => {
    const t = timeline(
      { shutdown: 1000, import: 1400, start: 2000, move: 2800, done: 9000 },
      {
        closedAt: 9000,
      },
    );
    expect(downtimeOf(t, 10_000)).toEqual({ from: 1000, ms: 1800, open: false });
    // Without a move: the start ends with the run.
    const copied = timeline({ shutdown: 1000, start: 2000, done: 2600 }, { closedAt: 2600 });
    expect(downtimeOf(copied, 10_000)).toEqual({ from: 1000, ms: 1600, open: false });
  });

  it("runs on to the rollback's end when the start was not the end of it, and stays open while the run goes on", () => {
    const rolledBack = timeline(
      { shutdown: 1000, start: 2000, rollback: 2500, 'rolled-back': 7000 },
      { closedAt: 7000 },
    );
    expect(downtimeOf(rolledBack, 10_000)).toEqual({ from: 1000, ms: 6000, open: false });
    const running = timeline({ shutdown: 1000, import: 1500 }, { state: 'running' } as Partial<WorkflowTimeline>);
    expect(downtimeOf(running, 4000)).toEqual({ from: 1000, ms: 3000, open: true });
    expect(downtimeOf(timeline({ relocate: 10 }), 100)).toBeUndefined();
  });
});

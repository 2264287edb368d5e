import { chaosSchedule, describeSchedule, KILL_POINTS } from '../../../lab/chaos/schedule';

const settings = { seed: 42, vms: 50, kills: 20, serverRestarts: 2, faults: 0.1, workers: 2 };

describe('chaos schedule', () => {
  it('is the same for the same seed and differs for another', () => {
    expect(chaosSchedule(settings)).toEqual(chaosSchedule(settings));
    expect(chaosSchedule({ ...settings, seed: 43 }).kills.map((k) => k.worker)).not.toEqual(
      chaosSchedule(settings).kills.map((k) => k.worker),
    );
  });

  it('with 20 kills uses every kill point, every stage and rejoin window, on both workers, with 2 server restarts', () => {
    const s = chaosSchedule(settings);
    expect(s.kills).toHaveLength(20);
    expect(new Set(s.kills.map((k) => k.point.label))).toEqual(new Set(KILL_POINTS.map((p) => p.label)));
    expect(new Set(s.kills.map((k) => k.point.workflowType))).toEqual(
      new Set(['migrationWave', 'sdnSync', 'migrateVm', 'provisionVm', 'teardownVm']),
    );
    expect(new Set(s.kills.map((k) => k.worker))).toEqual(new Set([0, 1]));
    expect(s.kills.filter((k) => k.restartServer)).toHaveLength(2);
    expect(s.workload).toEqual({ migrate: 30, provision: 20, teardown: 10 });
  });

  it('with fewer kills than points keeps the rejoin windows first', () => {
    const s = chaosSchedule({ ...settings, vms: 10, kills: 5, serverRestarts: 1 });
    expect(s.kills).toHaveLength(5);
    expect(
      s.kills
        .filter((k) => k.point.heartbeat)
        .map((k) => k.point.activity)
        .sort(),
    ).toEqual(['importDisk', 'relocateVm']);
    expect(s.kills.filter((k) => k.restartServer)).toHaveLength(1);
    expect(s.workload).toEqual({ migrate: 6, provision: 4, teardown: 2 });
  });

  it('more kills than points repeat points; the printed schedule lists each kill', () => {
    const s = chaosSchedule({ ...settings, kills: 30 });
    expect(s.kills).toHaveLength(30);
    const lines = describeSchedule(s);
    expect(lines[0]).toBe(
      'chaos: seed 42; 50 VMs (30 migrated, 20 provisioned, 10 of them torn down); 2 workers; faults 0.1',
    );
    expect(lines.filter((l) => /^ {2}kill +\d+: worker [12] at "/.test(l))).toHaveLength(30);
    expect(lines.at(-1)).toMatch(/BIND: stopped for [3-8] s/);
  });
});

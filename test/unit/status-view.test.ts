import { changed, changeLines } from '../../cli/status-view/changes';
import { renderStatus } from '../../cli/status-view/render-status';
import { renderWave } from '../../cli/status-view/render-wave';
import { newWaveStatus } from '../../src/domain/migration';
import { statusViewSchema, summarizeWave, type StatusView } from '../../src/domain/status';

const GiB = 1024 ** 3;
const status = {
  ...newWaveStatus('w1'),
  stage: 'migrating' as const,
  vms: [
    {
      moid: 'vm-1',
      name: 'web01',
      workflowId: 'm-1',
      state: 'running' as const,
      stage: 'import' as const,
      stageAt: 0,
      bytes: GiB,
    },
    {
      moid: 'vm-2',
      name: 'db01',
      workflowId: 'm-2',
      state: 'running' as const,
      stage: 'awaiting-approval' as const,
      stageAt: 0,
      bytes: GiB,
    },
    {
      moid: 'vm-3',
      name: 'app01',
      workflowId: 'm-3',
      state: 'running' as const,
      stage: 'relocate' as const,
      stageAt: 60_000,
      bytes: GiB,
    },
  ],
};

function view(percent: number): StatusView {
  const wave = summarizeWave(status, { now: 0, limits: { vmotion: 1, importPerStorage: 1 } });
  const done = (GiB * percent) / 100;
  return {
    workflowId: 'wave-w1',
    type: 'migrationWave',
    state: 'RUNNING',
    progress: [],
    wave,
    vmActivities: {
      'm-1': [
        {
          activity: 'importDisk',
          attempt: 1,
          progress: {
            phase: 'import',
            elapsedMs: 10_000,
            bytesDone: done,
            bytesTotal: GiB,
            percent,
            bytesPerSecond: done / 10,
          },
        },
      ],
      'm-2': [],
      'm-3': [],
    },
  };
}

describe('the live view of a wave', () => {
  it('a bar with bytes, rate and ETA for a copy; the age of a wait; the permit a stage waits for', () => {
    const text = renderWave(view(25), 120_000).join('\n');
    expect(text).toMatch(/web01 +import +\[#####-{15}\] +25% 256\.0 MiB\/1\.0 GiB 25\.6 MiB\/s ETA 30s/);
    expect(text).toMatch(/db01 +awaiting-approval +waiting 2m00s/);
    expect(text).toMatch(/app01 +relocate +waits for vMotion permit 1m00s/);
    // app01's vMotion is ahead and no vMotion has finished: no rate, no figure (rather than a guess).
    expect(text).toContain('ETA: unknown (2.8 GiB to import, 1 at once; import 25.6 MiB/s running now)');
    expect(text).toContain('1 wait for a person (not counted)');
  });

  it('a finished VM shows how it ended and its guest verdict with boot-to-agent and downtime', () => {
    const finished = {
      ...status,
      vms: [
        {
          moid: 'vm-1',
          name: 'web01',
          workflowId: 'm-1',
          state: 'finished' as const,
          outcome: 'migrated' as const,
          verification: { state: 'verified' as const, bootToAgentSeconds: 14, downtimeSeconds: 61.5 },
        },
        {
          moid: 'vm-2',
          name: 'ens01',
          workflowId: 'm-2',
          state: 'finished' as const,
          outcome: 'rolled-back' as const,
          verification: { state: 'failed' as const, bootToAgentSeconds: 20 },
        },
        { moid: 'vm-3', name: 'db01', workflowId: 'm-3', state: 'finished' as const, outcome: 'migrated' as const },
      ],
    };
    const wave = summarizeWave(finished, { now: 0, limits: { vmotion: 1, importPerStorage: 1 } });
    const text = renderWave(
      { workflowId: 'wave-w1', type: 'migrationWave', state: 'COMPLETED', progress: [], wave, vmActivities: {} },
      0,
    ).join('\n');
    expect(text).toMatch(/web01 .*migrated, guest verified \(boot-to-agent 14 s, downtime 61\.5 s\)$/m);
    expect(text).toMatch(/ens01 .*rolled-back, guest failed \(boot-to-agent 20 s\)$/m);
    expect(text).toMatch(/db01 .*migrated$/m);
  });

  it('a refused VM shows why in the frame, in the lines off a terminal, in --json rows and in the full status', () => {
    const why =
      'Hard disk 1 is on LocalDS_0 ([LocalDS_0] legacy/legacy.vmdk), not on the migration datastore nfs-migration';
    const refused = {
      ...status,
      refused: Array.from({ length: 12 }, (_, i) => ({
        name: `snap${i}`,
        moid: `vm-${100 + i}`,
        refusals: [{ code: 'snapshot' as const, subject: `snap${i}`, reason: `snap${i} has snapshots` }],
      })),
      vms: [
        {
          moid: 'vm-4',
          name: 'legacy01',
          workflowId: 'm-4',
          state: 'finished' as const,
          stage: 'refused' as const,
          outcome: 'refused' as const,
          refusal: why,
        },
        {
          moid: 'vm-5',
          name: 'app02',
          workflowId: 'm-5',
          state: 'finished' as const,
          stage: 'import' as const,
          error: 'import failed: no space',
        },
      ],
    };
    const wave = summarizeWave(refused, { now: 0, limits: { vmotion: 1, importPerStorage: 1 } });
    const frame: StatusView = {
      workflowId: 'wave-w1',
      type: 'migrationWave',
      state: 'COMPLETED',
      progress: [],
      wave,
      vmActivities: {},
    };
    const text = renderWave(frame, 0).join('\n');
    // The reason, once: not "refused refused" with nothing after it.
    expect(text).toContain(`legacy01                 refused            ${why}`);
    expect(text).toMatch(/app02 +import +failed: import failed: no space$/m);
    // Refusals at discovery: the first ten with why, the rest counted.
    expect(text).toContain('  refused at discovery: snap0: snap0 has snapshots\n');
    expect(text).toContain(
      '  refused at discovery: snap9: snap9 has snapshots\n  2 more refused at discovery (ferry status w1 --full)',
    );
    expect(text).not.toContain('snap10 has snapshots');
    expect(wave.refusedShown).toHaveLength(10);
    expect([...changeLines(frame).values()]).toEqual(
      expect.arrayContaining([
        `legacy01: refused ${why}`,
        'app02: import failed: import failed: no space',
        'snap3: refused at discovery: snap3 has snapshots',
      ]),
    );
    expect(wave.rows.find((r) => r.name === 'legacy01')).toMatchObject({ outcome: 'refused', refusal: why });
    expect(statusViewSchema.parse(frame).wave!.rows.find((r) => r.name === 'legacy01')!.refusal).toBe(why);
    const full = renderStatus({ ...frame, status: { ...refused } as unknown as Record<string, unknown> }, 0);
    expect(full).toMatch(new RegExp(`legacy01 +finished +refused +refused: ${why.replace(/[()[\]]/g, '\\$&')}`));
    // One VM's own status lists its refusals, and a shell that could not be removed.
    const vm = renderStatus(
      {
        workflowId: 'm-4',
        type: 'migrateVm',
        state: 'COMPLETED',
        progress: [],
        status: {
          stage: 'refused',
          outcome: 'refused',
          refusals: [{ code: 'disk-unmapped-datastore', subject: 'Hard disk 1', reason: why }],
          shellKept: 'the shell VM 20004 was kept: locked',
        },
      },
      0,
    );
    expect(vm).toContain(`  refused:\n    ${why}\n    the shell VM 20004 was kept: locked`);
  });

  it("a VM's approval says whether it was signed; a setting's decision has no signer", () => {
    const view = (approval: Record<string, unknown>) =>
      renderStatus(
        {
          workflowId: 'm-5',
          type: 'migrateVm',
          state: 'RUNNING',
          progress: [],
          status: { stage: 'import', approval },
        },
        0,
      );
    expect(view({ by: 'alice', reason: 'lab', at: 1, via: 'signal' })).toContain('  approved by alice (unsigned): lab');
    expect(view({ by: 'bob', reason: 'cr 7', at: 1, via: 'update', signed: true })).toContain(
      '  approved by bob (signed): cr 7',
    );
    expect(view({ by: 'ferry', reason: 'window', at: 1, via: 'setting' })).toContain('  approved by ferry: window');
  });

  it('off a terminal: a line when a stage changes or a copy passes a tenth, not at every poll', () => {
    const first = changeLines(view(25));
    expect(changed(new Map(), first)).toContain('web01: import import 20%');
    expect(changed(first, changeLines(view(27)))).toEqual([]);
    expect(changed(first, changeLines(view(31)))).toEqual(['web01: import import 30%']);
  });
});

import {
  approvalCovers,
  approvedBy,
  newWaveStatus,
  selectionSummary,
  stageReportApplies,
  waveCounts,
  type WaveApproval,
  type WaveVm,
} from '../../../../src/domain/migration';

const approval = (vms: WaveApproval['vms'], by = 'alice'): WaveApproval => ({
  by,
  reason: 'change 42',
  at: 0,
  via: 'update',
  vms,
});

describe('newWaveStatus', () => {
  it('starts in discovery with nothing counted', () => {
    expect(newWaveStatus('w1')).toEqual({
      waveId: 'w1',
      stage: 'discover',
      vms: [],
      refused: [],
      approvals: [],
      ignored: [],
      counts: { pending: 0, running: 0, finished: 0 },
    });
  });
});

describe('waveCounts', () => {
  it('counts the VMs in each state', () => {
    const vms = (['pending', 'running', 'running', 'finished'] as const).map((state, i): WaveVm => ({
      moid: `vm-${i}`,
      name: `v${i}`,
      workflowId: `w${i}`,
      state,
    }));
    expect(waveCounts(vms)).toEqual({ pending: 1, running: 2, finished: 1 });
  });
});

describe('wave approvals', () => {
  it('an approval of every VM covers any name', () => {
    expect(approvalCovers(approval('all'), 'web01')).toBe(true);
  });

  it('an approval of named VMs covers only those', () => {
    expect(approvalCovers(approval(['web01']), 'web01')).toBe(true);
    expect(approvalCovers(approval(['web01']), 'db01')).toBe(false);
  });

  it('approvedBy finds the first approval that covers the VM', () => {
    const approvals = [approval(['db01'], 'bob'), approval('all', 'alice'), approval(['web01'], 'carol')];
    expect(approvedBy(approvals, 'web01')?.by).toBe('alice');
    expect(approvedBy(approvals, 'db01')?.by).toBe('bob');
    expect(approvedBy([approval(['db01'])], 'web01')).toBeUndefined();
  });
});

describe('stageReportApplies', () => {
  it('applies any stage to a running VM that has none numbered yet', () => {
    expect(stageReportApplies({ state: 'running' }, 3)).toBe(true);
    expect(stageReportApplies({ state: 'running' }, undefined)).toBe(true);
  });

  it('applies only a later stage than the one applied', () => {
    expect(stageReportApplies({ state: 'running', stageSeq: 3 }, 4)).toBe(true);
    expect(stageReportApplies({ state: 'running', stageSeq: 3 }, 3)).toBe(false);
    expect(stageReportApplies({ state: 'running', stageSeq: 3 }, 2)).toBe(false);
  });

  it('applies an unnumbered stage (from a VM workflow that does not number them)', () => {
    expect(stageReportApplies({ state: 'running', stageSeq: 3 }, undefined)).toBe(true);
  });

  it('applies nothing once the VM finished', () => {
    expect(stageReportApplies({ state: 'finished' }, 5)).toBe(false);
  });
});

describe('selectionSummary', () => {
  it('says where the VMs are', () => {
    expect(selectionSummary({ folder: '/DC0/vm/apps' })).toBe('VMs in /DC0/vm/apps');
    expect(selectionSummary({ cluster: 'C1' })).toBe('VMs in cluster C1');
    expect(selectionSummary({ tag: 'ferry/wave1' })).toBe('VMs tagged ferry/wave1');
  });

  it('joins filters that apply together', () => {
    expect(selectionSummary({ folder: '/DC0/vm/apps', cluster: 'C1', tag: 'wave1' })).toBe(
      'VMs in /DC0/vm/apps in cluster C1 tagged wave1',
    );
  });

  it('names a few VMs and counts the rest', () => {
    expect(selectionSummary({ names: ['web01', 'web02'] })).toBe('VMs named web01, web02');
    expect(selectionSummary({ names: ['a', 'b', 'c', 'd', 'e'] })).toBe('VMs named a, b, c +2 more');
    expect(selectionSummary({ names: [] })).toBe('VMs named (none)');
  });
});

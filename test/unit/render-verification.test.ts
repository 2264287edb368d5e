import { renderStatus } from '../../cli/status-view/render-status';

describe('ferry status shows a migration’s guest verification', () => {
  const base = {
    vm: 'mig-app01',
    moid: 'vm-60',
    stage: 'done',
    outcome: 'migrated',
    actions: [],
    timings: [],
    waits: [],
    decisions: [],
    ignored: [],
    refusals: [],
    imports: [],
  };
  const at = Date.UTC(2026, 0, 1, 10, 0, 5);

  it('per VM: the verdict with boot-to-agent and downtime, and every check with its time', () => {
    const status = {
      ...base,
      vmwarePowerState: 'poweredOn',
      verification: {
        state: 'verified',
        bootToAgentSeconds: 14,
        downtimeSeconds: 41.3,
        expectedAddress: { address: '198.51.100.21', source: 'config' },
        checks: [
          { check: 'qemu-running', result: 'passed', at, detail: 'status running, qmpstatus running, up 1 s' },
          { check: 'agent-ping', result: 'passed', at, detail: 'answered 14 s after QEMU started' },
        ],
      },
    };
    const text = renderStatus({
      workflowId: 'migrate-vc-vm-60',
      type: 'migrateVm',
      state: 'COMPLETED',
      status: status as never,
      progress: [],
    });
    expect(text).toContain('  VMware power state before the shutdown: poweredOn');
    expect(text).toContain('  guest: verified (boot-to-agent 14 s, downtime 41.3 s)');
    expect(text).toContain('    expected address 198.51.100.21 (config)');
    expect(text).toContain('    10:00:05 agent-ping   passed  answered 14 s after QEMU started');
  });

  it('a failed verification lists the guest’s interfaces; a VM left stopped is "not verified (left stopped)"', () => {
    const failed = {
      ...base,
      verification: {
        state: 'failed',
        checks: [],
        interfaces: [{ name: 'ens18', mac: '00:50:56:01:00:04', addresses: [] }],
      },
    };
    expect(
      renderStatus({ workflowId: 'w', type: 'migrateVm', state: 'RUNNING', status: failed as never, progress: [] }),
    ).toContain('      ens18 00:50:56:01:00:04 (no address)');
    const stopped = { ...base, verification: { state: 'not-verified-left-stopped', checks: [] } };
    expect(
      renderStatus({ workflowId: 'w', type: 'migrateVm', state: 'COMPLETED', status: stopped as never, progress: [] }),
    ).toContain('  guest: not verified (left stopped)');
  });

  it('a wave shows each VM’s verdict and figures on its row', () => {
    const wave = {
      vms: [
        {
          name: 'mig-app01',
          state: 'finished',
          stage: 'done',
          outcome: 'migrated',
          verification: { state: 'verified', bootToAgentSeconds: 14, downtimeSeconds: 41.3 },
        },
      ],
    };
    expect(
      renderStatus({ workflowId: 'w', type: 'migrationWave', state: 'COMPLETED', status: wave as never, progress: [] }),
    ).toMatch(/mig-app01 +finished +done +migrated, guest verified \(boot-to-agent 14 s, downtime 41\.3 s\)/);
  });
});

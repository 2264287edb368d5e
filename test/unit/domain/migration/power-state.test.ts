import {
  assessInventory,
  cutoverPlan,
  cutoverPowerRefusal,
  powerStateWarnings,
  predictVmActions,
  rollbackPowerAction,
} from '../../../../src/domain/migration';
import { disk, nic, PORTGROUPS, rules, vm } from './fixtures';

describe('power state: rollback restores, it does not guess', () => {
  it('powers on on rollback only a VM that was on (or whose state a run did not record)', () => {
    expect(rollbackPowerAction('poweredOn')).toBe('power-on');
    expect(rollbackPowerAction('poweredOff')).toBe('leave-off');
    expect(rollbackPowerAction(undefined)).toBe('power-on');
  });

  it('refuses a suspended VM at cutover with what to do, and nothing else', () => {
    expect(cutoverPowerRefusal('app01', 'suspended')).toEqual({
      code: 'vm-suspended',
      subject: 'app01',
      reason:
        'app01 is not cut over: it is suspended on VMware: resume it or power it off first, then run the migration again',
    });
    expect(cutoverPowerRefusal('app01', 'poweredOn')).toBeUndefined();
    expect(cutoverPowerRefusal('app01', 'poweredOff')).toBeUndefined();
  });

  it('warns of suspended and powered-off VMs before anyone approves', () => {
    expect(powerStateWarnings('a', 'poweredOn')).toEqual([]);
    expect(powerStateWarnings('a', 'poweredOff')).toEqual([
      'a is powered off: ferry does not shut it down, and a rollback leaves it off',
    ]);
    expect(powerStateWarnings('a', 'suspended')[0]).toMatch(
      /suspended: the cutover will be refused \(.*resume it or power it off first/,
    );
  });

  const [web01] = assessInventory(
    { portgroups: PORTGROUPS, vms: [vm({ moid: 'vm-42', name: 'web01', disks: [disk(2000)], nics: [nic(4000)] })] },
    rules(),
  ).vms;
  const settings = {
    node: 'pve1',
    migrationDatastore: 'nfs-migration',
    targetStorage: 'local-lvm',
    cutover: {
      mode: 'import' as const,
      shutdownTimeoutMs: 1,
      forcePowerOff: true,
      startAfter: true,
      importTimeoutMs: 1,
    },
  };
  const live = (powerState: 'poweredOn' | 'poweredOff' | 'suspended') => ({
    existing: [],
    datastores: ['nfs-migration'],
    diskDatastores: { 'Hard disk 1': 'nfs-migration' },
    powerState,
  });

  it('plan predicts the refusal right after the approval for a suspended VM (forcePowerOff or not), with the warning in its notes', () => {
    const p = predictVmActions(web01!, live('suspended'), settings, { vnets: [] }, { zones: [], vnets: [] });
    expect(p.actions.map((a) => a.kind)).toEqual(['create-vm', 'set-nic', 'await-approval', 'refuse']);
    expect(p.refusals.map((r) => r.code)).toEqual(['vm-suspended']);
    expect(p.notes).toEqual(expect.arrayContaining([expect.stringMatching(/suspended: the cutover will be refused/)]));
  });

  it('plan predicts no shutdown for a powered-off VM and says a rollback leaves it off', () => {
    const p = predictVmActions(web01!, live('poweredOff'), settings, { vnets: [] }, { zones: [], vnets: [] });
    expect(p.actions.map((a) => a.kind)).not.toContain('shutdown-guest');
    expect(p.notes).toContain('web01 is powered off: ferry does not shut it down, and a rollback leaves it off');
  });

  it('the cutover plan carries the same warnings', () => {
    const throughput = { bytesPerSecond: 1, measured: false };
    expect(cutoverPlan(web01!, 'import', 'local-lvm', throughput, 'suspended').warnings).toHaveLength(1);
    expect(cutoverPlan(web01!, 'import', 'local-lvm', throughput).warnings).toEqual([]);
  });
});

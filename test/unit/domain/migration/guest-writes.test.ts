import {
  assessInventory,
  cutoverPlan,
  guestWritesAtRisk,
  guestWritesProblem,
  LIVE_IMPORT_RISK,
} from '../../../../src/domain/migration';
import { disk, nic, PORTGROUPS, rules, vm as vmOf } from './fixtures';

describe('live-import: the riskiest decision says so', () => {
  const decision = { by: 'alice', reason: 'stream failed' };

  it('the guest’s writes are at risk only once a live import this workflow started has run the VM', () => {
    expect(guestWritesAtRisk('live-import', { replacedVm: true })).toBe(true);
    expect(guestWritesAtRisk('live-import', { replacedVm: false })).toBe(false);
    expect(guestWritesAtRisk('live-import', {})).toBe(false);
    expect(guestWritesAtRisk('import', { replacedVm: true, ranOnOverlays: true })).toBe(false);
    expect(guestWritesAtRisk(undefined, { replacedVm: true })).toBe(false);
  });

  it('in overlay mode, once the VM started from its overlays', () => {
    expect(guestWritesAtRisk('overlay', { ranOnOverlays: true })).toBe(true);
    expect(guestWritesAtRisk('overlay', { replacedVm: true })).toBe(false);
    expect(guestWritesProblem('rollback', { by: 'alice', reason: 'r' }, true, 'overlay')).toBe(
      'a rollback after the VM started from its overlays discards what the guest wrote since it started on Proxmox; acknowledge it with discardGuestWrites: true (ferry rollback … --discard-guest-writes)',
    );
  });

  it.each(['retry', 'rollback'] as const)(
    'a %s at risk is refused without the acknowledgement, naming the flag',
    (kind) => {
      expect(guestWritesProblem(kind, decision, true)).toBe(
        `a ${kind} after a failed live import discards what the guest wrote since it started on Proxmox; ` +
          `acknowledge it with discardGuestWrites: true (ferry ${kind} … --discard-guest-writes)`,
      );
      expect(guestWritesProblem(kind, { ...decision, discardGuestWrites: false }, true)).toMatch(
        /--discard-guest-writes/,
      );
      expect(guestWritesProblem(kind, { ...decision, discardGuestWrites: true }, true)).toBeUndefined();
      expect(guestWritesProblem(kind, decision, false)).toBeUndefined();
    },
  );

  it('the cutover plan states the risk before approval in live-import mode only', () => {
    const [vm] = assessInventory(
      { portgroups: PORTGROUPS, vms: [vmOf({ moid: 'vm-42', name: 'web01', disks: [disk(2000)], nics: [nic(4000)] })] },
      rules(),
    ).vms;
    const throughput = { bytesPerSecond: 1, measured: false };
    expect(cutoverPlan(vm!, 'live-import', 'local-lvm', throughput).warnings).toEqual([LIVE_IMPORT_RISK]);
    expect(cutoverPlan(vm!, 'import', 'local-lvm', throughput).warnings).toEqual([]);
    expect(LIVE_IMPORT_RISK).toMatch(/what the guest wrote since it started on Proxmox is lost/);
  });
});

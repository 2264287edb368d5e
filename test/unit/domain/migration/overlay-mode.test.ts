import {
  assessInventory,
  cutoverPlan,
  expectedDowntimes,
  measuredThroughput,
  OVERLAY_RISK,
  predictVmActions,
  ASSUMED_BOOT_SECONDS,
  ASSUMED_SHUTDOWN_SECONDS,
} from '../../../../src/domain/migration';
import { renderLifecycle } from '../../../../cli/render-lifecycle';
import { disk, nic, PORTGROUPS, rules, vm } from './fixtures';

const SETTINGS = {
  node: 'pve1',
  migrationDatastore: 'nfs-migration',
  targetStorage: 'local-lvm',
  cutover: {
    mode: 'overlay' as const,
    shutdownTimeoutMs: 300_000,
    forcePowerOff: false,
    startAfter: false,
    importTimeoutMs: 3_600_000,
  },
};
const { vms, vnetPlan } = assessInventory(
  {
    portgroups: PORTGROUPS,
    vms: [
      vm({
        moid: 'vm-42',
        name: 'web01',
        disks: [disk(2000), disk(2001, { capacityBytes: 32 * 1024 ** 3 })],
        nics: [nic(4000)],
      }),
    ],
  },
  rules(),
);
const web01 = vms[0]!;

describe('the overlay cutover mode', () => {
  it('predicts overlays attached, a start (always: the VM runs from them) and then each disk moved live', () => {
    const actions = predictVmActions(
      web01,
      { existing: [], datastores: ['nfs-migration'], diskDatastores: {}, powerState: 'poweredOn' },
      SETTINGS,
      vnetPlan,
      { zones: ['ferry'], vnets: ['v100'] },
    ).actions;
    expect(actions.slice(actions.findIndex((a) => a.kind === 'shutdown-guest'))).toEqual([
      { kind: 'shutdown-guest', vm: 'web01', moid: 'vm-42' },
      { kind: 'attach-overlay', vm: 'web01', vmid: 20042, slot: 'scsi0', disk: 'Hard disk 1' },
      { kind: 'attach-overlay', vm: 'web01', vmid: 20042, slot: 'scsi1', disk: 'Hard disk 2' },
      { kind: 'set-boot-order', vm: 'web01', vmid: 20042, order: 'order=scsi0;net0' },
      { kind: 'start-vm', vm: 'web01', vmid: 20042 },
      { kind: 'move-disk', vm: 'web01', vmid: 20042, slot: 'scsi0', storage: 'local-lvm' },
      { kind: 'move-disk', vm: 'web01', vmid: 20042, slot: 'scsi1', storage: 'local-lvm' },
    ]);
  });

  it('expects the downtime of a boot whatever the disks weigh, and says what a rollback costs', () => {
    const plan = cutoverPlan(web01, 'overlay', 'local-lvm', measuredThroughput([]));
    expect(plan.expectedDowntimeSeconds).toBe(ASSUMED_SHUTDOWN_SECONDS + ASSUMED_BOOT_SECONDS);
    expect(plan.warnings).toEqual([OVERLAY_RISK]);
    const byMode = expectedDowntimes(web01);
    expect(byMode.overlay).toBe(byMode['live-import']);
    expect(byMode.import).toBeGreaterThan(byMode.overlay + 300); // 32 GiB and more at the assumed 100 MiB/s
  });

  it('shows each move in ferry status, with its attempts, and the overlays once dropped', () => {
    const lines = renderLifecycle({
      moid: 'vm-42',
      imports: [],
      overlays: {
        storage: 'nfs-migration',
        disks: [{ slot: 'scsi0', source: 'web01/web01.vmdk' }],
        removed: ['images/20042/vm-20042-disk-0.qcow2'],
      },
      moves: [
        {
          slot: 'scsi0',
          from: 'nfs-migration:20042/vm-20042-disk-0.qcow2',
          storage: 'local-lvm',
          volume: 'local-lvm:vm-20042-disk-0',
          seconds: 41.25,
          attempts: 3,
        },
        { slot: 'scsi1', from: 'nfs-migration:20042/vm-20042-disk-1.qcow2', storage: '', attempts: 0 },
      ],
    });
    expect(lines).toEqual([
      '  overlays on nfs-migration: removed images/20042/vm-20042-disk-0.qcow2',
      '  move scsi0: moved to local-lvm:vm-20042-disk-0 in 41.3 s (3 attempts; the VM ran on its overlay meanwhile)',
      '  move scsi1: from nfs-migration:20042/vm-20042-disk-1.qcow2, not moved yet',
    ]);
  });
});

import { RULES, type Baseline } from '../../../../src/domain/change';
import type { RecordDisk } from '../../../../src/domain/provisioning';
import { GIB, STORAGES, configWith, ids, only, planFor } from './fixtures';

const scsi0: RecordDisk = { id: 1, name: 'scsi0', sizeMB: 20_480, fields: {} };
const disk = (name: string, sizeMB: number, fields: RecordDisk['fields'] = {}): RecordDisk => ({
  id: 2,
  name,
  sizeMB,
  fields,
});
const withScsi1 = configWith({ scsi1: 'local-lvm:vm-9001-disk-2,discard=on,iothread=1,size=10G' });

describe('disk sizes (PVE/API2/Qemu.pm resize_vm)', () => {
  it('a disk grown in NetBox is resized on the running VM, to an absolute size with its suffix', () => {
    const plan = planFor({ diskMB: 25_600 });
    // Resize is its own API call, whatever hotplug says (the QEMU side is block_resize).
    expect(only(planFor({ diskMB: 25_600 }, { config: configWith({ hotplug: '0' }) }), 'scsi0.size').class).toBe(
      'live',
    );
    expect(only(plan, 'scsi0.size')).toMatchObject({
      class: 'live',
      rule: RULES.resize,
      from: String(20 * GIB),
      to: String(25 * GIB),
      operation: { op: 'resize-disk', slot: 'scsi0', size: '25G', sizeBytes: 25 * GIB },
    });
    expect(plan.steps.resizes).toEqual([{ change: 'scsi0.size', slot: 'scsi0', size: '25G', sizeBytes: 25 * GIB }]);
    expect(plan.steps.live).toBeUndefined();
    // NetBox's MB count as MiB and round up to whole GiB, as provisioning sizes disks.
    expect(only(planFor({ diskMB: 21_000 }), 'scsi0.size').to).toBe(String(21 * GIB));
  });

  it('refuses a shrink ("shrinking disks is not supported")', () => {
    const change = only(planFor({ diskMB: 10_240 }), 'scsi0.size');
    expect(change).toMatchObject({ class: 'refused', rule: RULES.resize });
    expect(change.why).toBe('scsi0 is 20G; NetBox asks for 10G: shrinking disks is not supported');
  });

  it('refuses to grow a disk its storage has no room for (the growth counted over the whole plan)', () => {
    const tight = STORAGES.map((s) => (s.id === 'local-lvm' ? { ...s, availBytes: 8 * GIB } : s));
    const plan = planFor({ disks: [scsi0, disk('scsi1', 15_360)] }, { config: withScsi1, storages: tight });
    expect(only(plan, 'scsi1.size')).toMatchObject({ class: 'live' });
    expect(
      planFor(
        { disks: [{ ...scsi0, sizeMB: 25_600 }, disk('scsi1', 15_360)] },
        { config: withScsi1, storages: tight },
      ).changes.map((c) => c.class),
    ).toEqual(['live', 'refused']);
  });
});

describe('disks added and detached (PVE/QemuServer.pm vmconfig_update_disk, vmconfig_hotplug_pending)', () => {
  it('a virtual disk added in NetBox is a new, empty disk: hot-plugged (scsi, virtio with disk hotplug), else at the restart', () => {
    const plan = planFor({ disks: [scsi0, disk('scsi1', 51_200, { storage: 'fast', options: 'ssd=1' })] });
    expect(only(plan, 'scsi1')).toMatchObject({
      class: 'live',
      rule: RULES.updateDisk,
      operation: { op: 'add-disk', slot: 'scsi1', storage: 'fast', sizeGiB: 50, options: { ssd: '1' } },
    });
    expect(plan.steps.live?.newDisks).toEqual({ scsi1: { storage: 'fast', sizeGiB: 50, options: { ssd: '1' } } });
    expect(only(planFor({ disks: [scsi0, disk('sata1', 1024)] }), 'sata1').class).toBe('at-restart');
    expect(
      only(planFor({ disks: [scsi0, disk('scsi1', 1024)] }, { config: configWith({ hotplug: '0' }) }), 'scsi1'),
    ).toMatchObject({ class: 'at-restart', waitsForRestart: true });
    expect(
      only(
        planFor({ disks: [scsi0, disk('virtio1', 1024)] }, { config: configWith({ hotplug: 'network' }) }),
        'virtio1',
      ).class,
    ).toBe('at-restart');
  });

  it('never imports on day 2: a new scsi0 gets no import-from even with ferry_image set', () => {
    const plan = planFor(
      { disks: [disk('scsi0', 10_240)], fields: { vmid: 9001, image: 'local:import/debian.qcow2' } },
      { config: configWith({ scsi0: undefined }) },
    );
    expect(only(plan, 'scsi0').operation).toEqual({
      op: 'add-disk',
      slot: 'scsi0',
      storage: 'local-lvm',
      sizeGiB: 10,
      options: { iothread: '1', discard: 'on' },
    });
  });

  it('refuses a disk on a storage that does not exist, holds no VM disks, is inactive or too small', () => {
    const reason = (storage: string, sizeMB = 1024) =>
      only(planFor({ disks: [scsi0, disk('scsi1', sizeMB, { storage })] }), 'scsi1').why;
    expect(reason('nope')).toBe('storage nope does not exist on node pve1');
    expect(reason('local')).toBe('storage local does not hold VM disks (no images content)');
    expect(reason('offline')).toBe('storage offline is not active on node pve1');
    expect(reason('fast', 200 * 1024)).toBe('storage fast cannot hold it: needs 200 GiB, 100 GiB free');
    const elsewhere = STORAGES.map((s) => (s.id === 'fast' ? { ...s, nodes: ['pve2', 'pve3'] } : s));
    expect(
      only(planFor({ disks: [scsi0, disk('scsi1', 1024, { storage: 'fast' })] }, { storages: elsewhere }), 'scsi1').why,
    ).toBe('storage fast does not exist on node pve1');
  });

  it('refuses a disk in a slot that holds a CD drive or the cloud-init drive', () => {
    const config = configWith({
      sata1: 'local:iso/tools.iso,media=cdrom',
      scsi29: 'local-lvm:vm-9001-cloudinit,media=cdrom',
    });
    expect(only(planFor({ disks: [scsi0, disk('sata1', 1024)] }, { config }), 'sata1')).toMatchObject({
      class: 'refused',
      rule: RULES.ferry,
    });
    expect(only(planFor({ disks: [scsi0, disk('scsi29', 1024)] }, { config }), 'scsi29').why).toBe(
      'scsi29 holds a CD drive or the cloud-init drive: give the disk another slot in NetBox',
    );
  });

  it('a disk gone from NetBox is detached to unusedN, never deleted: at once with disk hotplug, else at the restart', () => {
    const plan = planFor({ disks: [scsi0] }, { config: withScsi1 });
    expect(only(plan, 'scsi1')).toMatchObject({
      class: 'detach',
      rule: RULES.hotplugPending,
      waitsForRestart: false,
      operation: { op: 'detach-disk', slot: 'scsi1', volume: 'local-lvm:vm-9001-disk-2' },
    });
    expect(plan.steps.live?.detach).toEqual(['scsi1']);
    const later = planFor({ disks: [scsi0] }, { config: { ...withScsi1, hotplug: '0' } });
    expect(only(later, 'scsi1')).toMatchObject({ class: 'detach', waitsForRestart: true, rule: RULES.applyPending });
    expect(later.steps.restart?.detach).toEqual(['scsi1']);
  });

  it('refuses to detach the disk the VM boots from', () => {
    expect(only(planFor({ disks: [disk('scsi1', 10_240)] }, { config: withScsi1 }), 'scsi0')).toMatchObject({
      class: 'refused',
      rule: RULES.ferry,
    });
  });

  it('a disk removed in Proxmox by hand is not replaced by an empty one', () => {
    const baseline: Baseline = { version: 1, applied: { scsi1: 'present' }, accepted: {} };
    const plan = planFor(
      { disks: [scsi0, disk('scsi1', 10_240)] },
      {},
      { baseline, policy: { handDrift: { default: 'netbox' } } },
    );
    expect(only(plan, 'scsi1')).toMatchObject({ class: 'refused', side: 'proxmox' });
  });
});

describe('disk storage (PVE/API2/Qemu.pm move_vm_disk)', () => {
  it('a disk whose storage changes in NetBox is moved live, its source kept as unusedN unless the policy deletes it', () => {
    const plan = planFor({ disks: [{ ...scsi0, fields: { storage: 'fast' } }] });
    expect(only(plan, 'scsi0.storage')).toMatchObject({
      class: 'move',
      rule: RULES.moveDisk,
      from: 'local-lvm',
      to: 'fast',
      operation: {
        op: 'move-disk',
        slot: 'scsi0',
        storage: 'fast',
        deleteSource: false,
        sourceVolume: 'local-lvm:vm-9001-disk-1',
      },
    });
    expect(plan.steps.moves).toEqual([
      {
        change: 'scsi0.storage',
        slot: 'scsi0',
        storage: 'fast',
        deleteSource: false,
        sourceVolume: 'local-lvm:vm-9001-disk-1',
      },
    ]);
    const deleting = planFor(
      { disks: [{ ...scsi0, fields: { storage: 'fast' } }] },
      {},
      { policy: { movedDiskSource: 'delete' } },
    );
    expect(only(deleting, 'scsi0.storage').operation).toMatchObject({ deleteSource: true });
    // Proxmox deletes no source of a disk with snapshots ("you can't move a disk with snapshots and delete the source").
    const snapshotted = planFor(
      { disks: [{ ...scsi0, fields: { storage: 'fast' } }] },
      { config: configWith({ parent: 'before-upgrade' }) },
      { policy: { movedDiskSource: 'delete' } },
    );
    expect(only(snapshotted, 'scsi0.storage').operation).toMatchObject({ deleteSource: false });
  });

  it('refuses a move to a storage that cannot take the disk, and grows a moved disk on its new storage', () => {
    expect(only(planFor({ disks: [{ ...scsi0, fields: { storage: 'local' } }] }), 'scsi0.storage')).toMatchObject({
      class: 'refused',
      rule: RULES.moveDisk,
    });
    const plan = planFor(
      { disks: [{ ...scsi0, sizeMB: 30_720, fields: { storage: 'fast' } }] },
      { storages: STORAGES.map((s) => (s.id === 'fast' ? { ...s, availBytes: 30 * GIB } : s)) },
    );
    expect(plan.changes.map((c) => [c.id, c.class])).toEqual([
      ['scsi0.storage', 'move'],
      ['scsi0.size', 'refused'],
    ]);
    expect(only(plan, 'scsi0.size').why).toContain('storage fast cannot hold it');
  });
});

describe('disk options (PVE/QemuServer.pm vmconfig_update_disk)', () => {
  it('aio, discard, iothread, cache and ssd wait for the restart; backup and replicate are written at once', () => {
    const plan = planFor({ disks: [{ ...scsi0, fields: { options: 'iothread=1,discard=on,cache=writeback,ssd=1' } }] });
    expect(plan.changes.map((c) => [c.id, c.class])).toEqual([
      ['scsi0.ssd', 'at-restart'],
      ['scsi0.cache', 'at-restart'],
    ]);
    expect(plan.steps.restart?.diskOptions).toEqual({ scsi0: { set: { ssd: '1', cache: 'writeback' }, unset: [] } });
    const backup = planFor({ disks: [{ ...scsi0, fields: { options: 'iothread=1,discard=on,backup=0' } }] });
    expect(only(backup, 'scsi0.backup')).toMatchObject({ class: 'live', rule: RULES.updateDisk });
    expect(backup.steps.live?.diskOptions).toEqual({ scsi0: { set: { backup: '0' }, unset: [] } });
  });

  it('an option NetBox no longer names is removed; a default value is the same as none', () => {
    const plan = planFor({ disks: [{ ...scsi0, fields: { options: 'iothread=0,backup=1' } }] });
    expect(ids(plan)).toEqual(['scsi0.iothread', 'scsi0.discard']);
    expect(plan.steps.restart?.diskOptions.scsi0).toEqual({ set: {}, unset: ['iothread', 'discard'] });
  });

  it('a live option on a disk with one waiting for the restart goes with it (one pending value per disk)', () => {
    const plan = planFor({ disks: [{ ...scsi0, fields: { options: 'iothread=1,discard=on,ssd=1,backup=0' } }] });
    expect(plan.changes.map((c) => [c.id, c.class])).toEqual([
      ['scsi0.ssd', 'at-restart'],
      ['scsi0.backup', 'at-restart'],
    ]);
  });

  it('options in ferry_disk_options that provisioning does not take are a problem for NetBox', () => {
    expect(() => planFor({ disks: [{ ...scsi0, fields: { options: 'iothread=1,serial=abc' } }] })).toThrow(
      'virtual disk "scsi0" custom field ferry_disk_options: only iothread, discard, ssd, cache, backup, replicate, aio',
    );
  });
});

import {
  describeAction,
  diskSourcesOf,
  refusal,
  refusalSummary,
  type DatastoreMapping,
} from '../../../../src/domain/migration';

const settings = {
  migrationDatastore: 'nfs-migration',
  datastores: [
    { datastore: 'nfs-migration', storage: 'nfs-migration', path: '/mnt/pve/nfs-migration' },
  ] as DatastoreMapping[],
};
const planned = {
  disks: [
    { slot: 'scsi0', source: 'Hard disk 1' },
    { slot: 'scsi1', source: 'Hard disk 2' },
  ],
} as Parameters<typeof diskSourcesOf>[0];
const on = (name: string) => ({ name, moid: `datastore-${name}` });

describe('diskSourcesOf: where Proxmox reads each planned disk, or why it cannot', () => {
  it('gives each slot its path, storage and storage-relative source', () => {
    const disks = [
      { label: 'Hard disk 2', fileName: '[nfs-migration] web01/web01_1.vmdk', datastore: on('nfs-migration') },
      { label: 'Hard disk 1', fileName: '[nfs-migration] web01/web01.vmdk', datastore: on('nfs-migration') },
    ];
    expect(diskSourcesOf(planned, disks, settings)).toEqual({
      byslot: {
        scsi0: {
          absolutePath: '/mnt/pve/nfs-migration/web01/web01.vmdk',
          importVolume: undefined,
          disk: 'Hard disk 1',
          storage: 'nfs-migration',
          source: 'web01/web01.vmdk',
        },
        scsi1: {
          absolutePath: '/mnt/pve/nfs-migration/web01/web01_1.vmdk',
          importVolume: undefined,
          disk: 'Hard disk 2',
          storage: 'nfs-migration',
          source: 'web01/web01_1.vmdk',
        },
      },
    });
  });

  it('refuses a disk the vMotion left elsewhere and one no longer attached, each with its reason', () => {
    const disks = [{ label: 'Hard disk 1', fileName: '[LocalDS_0] legacy/legacy.vmdk', datastore: on('LocalDS_0') }];
    expect(diskSourcesOf(planned, disks, settings)).toEqual({
      refusals: [
        {
          code: 'disk-unmapped-datastore',
          subject: 'Hard disk 1',
          reason:
            'Hard disk 1 is on LocalDS_0 ([LocalDS_0] legacy/legacy.vmdk), not on the migration datastore nfs-migration; the storage vMotion did not move it',
        },
        {
          code: 'disk-path-invalid',
          subject: 'Hard disk 2',
          reason: 'Hard disk 2 is no longer attached to the VMware VM',
        },
      ],
    });
  });

  it('refuses a disk on the migration datastore whose path cannot be read', () => {
    const disks = [
      { label: 'Hard disk 1', fileName: '[nfs-migration] ../x.vmdk', datastore: on('nfs-migration') },
      { label: 'Hard disk 2', fileName: '[nfs-migration] a/b.vmdk', datastore: on('nfs-migration') },
    ];
    const checked = diskSourcesOf(planned, disks, settings);
    expect('refusals' in checked && checked.refusals.map((r) => [r.code, r.subject])).toEqual([
      ['disk-path-invalid', 'Hard disk 1'],
    ]);
  });
});

describe('a refusal in one line, and the shell removed with it', () => {
  it('joins the reasons, with a note', () => {
    const reasons = [
      refusal('rdm', 'Hard disk 2', 'Hard disk 2 is an RDM'),
      refusal('snapshot', 'a', 'a has snapshots'),
    ];
    expect(refusalSummary(reasons)).toBe('Hard disk 2 is an RDM; a has snapshots');
    expect(refusalSummary(reasons.slice(0, 1), 'the shell VM 5 was kept: locked')).toBe(
      'Hard disk 2 is an RDM; the shell VM 5 was kept: locked',
    );
  });

  it('says why a shell was removed', () => {
    expect(describeAction({ kind: 'remove-shell', vm: 'legacy01', vmid: 20004, refused: true })).toBe(
      'legacy01: remove the shell VM 20004 (refused before its approval)',
    );
    expect(describeAction({ kind: 'remove-shell', vm: 'a', vmid: 1 })).toBe('a: remove the shell VM 1');
  });
});

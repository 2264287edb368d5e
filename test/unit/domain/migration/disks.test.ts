import {
  diskRefusals,
  parseDatastorePath,
  planDiskSlots,
  pveVmName,
  translateDiskPath,
  type DatastoreMapping,
} from '../../../../src/domain/migration';
import { disk, vm } from './fixtures';

describe('parseDatastorePath', () => {
  it.each([
    ['[nfs-migration] web01/web01.vmdk', { datastore: 'nfs-migration', path: 'web01/web01.vmdk' }],
    ['[Local DS 1]  a b/c d.vmdk', { datastore: 'Local DS 1', path: 'a b/c d.vmdk' }],
    ['[ds]file.vmdk', { datastore: 'ds', path: 'file.vmdk' }],
  ])('%p', (input, expected) => expect(parseDatastorePath(input)).toEqual(expected));

  it.each(['web01/web01.vmdk', '[ds]', '[] x.vmdk', '[ds] ../etc/passwd', '[ds] a//b.vmdk', '[ds] a/'])(
    'refuses %p',
    (input) => expect(parseDatastorePath(input)).toBeUndefined(),
  );
});

describe('translateDiskPath', () => {
  const mappings: DatastoreMapping[] = [
    { datastore: 'nfs-migration', storage: 'nfs-migration', path: '/mnt/pve/nfs-migration/' },
    { datastore: 'nfs-import', storage: 'nfsimp', path: '/mnt/pve/nfsimp', layout: 'import-dir' },
  ];

  it('translates to the path on the Proxmox nodes', () => {
    expect(translateDiskPath({ label: 'Hard disk 1', fileName: '[nfs-migration] web01/web01.vmdk' }, mappings)).toEqual(
      {
        ok: true,
        storage: 'nfs-migration',
        absolutePath: '/mnt/pve/nfs-migration/web01/web01.vmdk',
        importVolume: undefined,
      },
    );
  });

  it('gives an import volume only for files directly in the storage’s import folder', () => {
    expect(translateDiskPath({ label: 'd', fileName: '[nfs-migration] import/web01.vmdk' }, mappings)).toMatchObject({
      importVolume: 'nfs-migration:import/web01.vmdk',
    });
    expect(translateDiskPath({ label: 'd', fileName: '[nfs-import] web01.vmdk' }, mappings)).toEqual({
      ok: true,
      storage: 'nfsimp',
      absolutePath: '/mnt/pve/nfsimp/import/web01.vmdk',
      importVolume: 'nfsimp:import/web01.vmdk',
    });
    expect(translateDiskPath({ label: 'd', fileName: '[nfs-import] web01/web01.vmdk' }, mappings)).toMatchObject({
      absolutePath: '/mnt/pve/nfsimp/import/web01/web01.vmdk',
      importVolume: undefined,
    });
  });

  it('refuses a datastore Proxmox does not mount, and an unreadable path', () => {
    expect(translateDiskPath({ label: 'Hard disk 2', fileName: '[LocalDS_0] web01/web01.vmdk' }, mappings)).toEqual({
      ok: false,
      refusal: {
        code: 'disk-unmapped-datastore',
        subject: 'Hard disk 2',
        reason:
          'Hard disk 2 is on datastore LocalDS_0, which no Proxmox storage mounts (known: nfs-migration, nfs-import)',
      },
    });
    expect(translateDiskPath({ label: 'Hard disk 3', fileName: 'nonsense' }, mappings)).toMatchObject({
      ok: false,
      refusal: { code: 'disk-path-invalid' },
    });
  });
});

describe('diskRefusals', () => {
  it('accepts persistent disks', () => expect(diskRefusals(vm())).toEqual([]));

  it.each(['independent_persistent', 'independent_nonpersistent', 'nonpersistent', 'undoable', 'append'])(
    'refuses disk mode %s',
    (diskMode) => {
      expect(diskRefusals(vm({ disks: [disk(2000, { diskMode })] }))).toEqual([
        {
          code: 'independent-disk',
          subject: 'Hard disk 1',
          reason: `Hard disk 1 is in disk mode ${diskMode}; set it to dependent (persistent) in vCenter before migrating`,
        },
      ]);
    },
  );

  it('refuses RDMs', () => {
    expect(diskRefusals(vm({ disks: [disk(2000, { rdm: { compatibilityMode: 'physicalMode' } })] }))).toEqual([
      expect.objectContaining({ code: 'rdm', reason: expect.stringContaining('raw device mapping (physicalMode)') }),
    ]);
  });
});

describe('planDiskSlots', () => {
  it('numbers disks in VMware order (bus, controller, unit)', () => {
    const source = vm({
      disks: [
        disk(2002, { controllerBusNumber: 1, controllerKey: 1001, unitNumber: 0, label: 'c' }),
        disk(2001, { unitNumber: 1, label: 'b' }),
        disk(2000, { unitNumber: 0, label: 'a' }),
      ],
    });
    expect(planDiskSlots(source, 'scsi').disks.map((d) => [d.slot, d.source])).toEqual([
      ['scsi0', 'a'],
      ['scsi1', 'b'],
      ['scsi2', 'c'],
    ]);
  });

  it('keeps SATA and IDE disks on their bus when asked', () => {
    const source = vm({
      disks: [
        disk(2000, { controllerType: 'ahci', controllerKey: 15000 }),
        disk(2001, { controllerType: 'ide', controllerKey: 200, unitNumber: 0 }),
        disk(2002, { controllerType: 'pvscsi', controllerKey: 1000, controllerBusNumber: 0, unitNumber: 2 }),
      ],
    });
    expect(
      planDiskSlots(source, 'keep')
        .disks.map((d) => d.slot)
        .sort(),
    ).toEqual(['ide0', 'sata0', 'scsi0']);
    expect(
      planDiskSlots(source, 'scsi')
        .disks.map((d) => d.slot)
        .sort(),
    ).toEqual(['scsi0', 'scsi1', 'scsi2']);
  });

  it('reports more disks than a bus holds', () => {
    const many = vm({ disks: Array.from({ length: 32 }, (_, i) => disk(2000 + i, { unitNumber: i })) });
    const { disks, problems } = planDiskSlots(many, 'scsi');
    expect(disks).toHaveLength(31);
    expect(problems).toEqual(['Hard disk 32: more than 31 disks on the scsi bus']);
  });
});

describe('pveVmName', () => {
  it.each([
    ['web01', 'web01'],
    ['web01.example.com', 'web01.example.com'],
    ['My Web Server (prod)', 'My-Web-Server-prod'],
    ['db_01', 'db-01'],
    ['--x--', 'x'],
    ['ünïcode', 'n-code'],
    ['***', 'vm'],
    ['a..b', 'a.b'],
  ])('%p → %p', (input, expected) => expect(pveVmName(input)).toBe(expected));

  it('keeps labels within 63 characters', () => {
    expect(pveVmName('x'.repeat(80))).toBe('x'.repeat(63));
  });
});

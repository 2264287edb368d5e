import { intentFromSpec } from '../../../../src/domain/change';
import type { RecordInterface } from '../../../../src/domain/provisioning';
import { DEFAULTS, RECORD, specOf } from './fixtures';

const iface = (name: string, edits: Partial<RecordInterface> = {}): RecordInterface => ({
  id: 1,
  name,
  enabled: true,
  taggedVlans: [],
  fields: {},
  ...edits,
});

describe('the day-2 intent of a record (src/domain/change/intent.ts)', () => {
  it('is the spec in Proxmox terms; a storage or bridge counts as NetBox’s only when the record names it', () => {
    const record = {
      ...RECORD,
      fields: {},
      disks: [
        { id: 1, name: 'scsi0', sizeMB: 20_480, fields: {} },
        { id: 2, name: 'scsi1', sizeMB: 1024, fields: { storage: 'fast' } },
      ],
      interfaces: [iface('net0'), iface('net1', { fields: { network: 'vmbr1' } })],
    };
    expect(intentFromSpec(specOf(record), { record, defaults: DEFAULTS })).toEqual({
      name: 'web1',
      netboxId: 42,
      vcpus: 2,
      memoryMiB: 2048,
      disks: [
        {
          slot: 'scsi0',
          storage: 'local-lvm',
          storageFromNetbox: false,
          sizeGiB: 20,
          sizeBytes: 20 * 1024 ** 3,
          options: { iothread: '1', discard: 'on' },
        },
        {
          slot: 'scsi1',
          storage: 'fast',
          storageFromNetbox: true,
          sizeGiB: 1,
          sizeBytes: 1024 ** 3,
          options: { iothread: '1', discard: 'on' },
        },
      ],
      nics: [
        { slot: 'net0', nic: { slot: 'net0', model: 'virtio', bridge: 'vmbr0' }, bridgeFromNetbox: false },
        { slot: 'net1', nic: { slot: 'net1', model: 'virtio', bridge: 'vmbr1' }, bridgeFromNetbox: true },
      ],
    });
    // A spec given whole names its storages and bridges itself.
    expect(intentFromSpec(specOf(record)).disks[0]!.storageFromNetbox).toBe(true);
  });
});

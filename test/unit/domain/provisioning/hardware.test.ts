import {
  bareVm,
  fqdn,
  hostAddress,
  nicIndex,
  requirements,
  validateSpec,
  vmOptions,
  type PlacedSpec,
} from '../../../../src/domain/provisioning';

function spec(input: Record<string, unknown>): PlacedSpec {
  const result = validateSpec({ name: 'web1', node: 'pve1', cores: 2, memoryMiB: 2048, ...input });
  if (!result.ok) throw new Error(result.problems.join('\n'));
  return { ...result.spec, node: result.spec.node ?? 'pve1' };
}

const disks = [
  { slot: 'scsi0', storage: 'local-lvm', sizeGiB: 20 },
  { slot: 'scsi1', storage: 'fast', sizeGiB: 100 },
];

describe('the Proxmox side of a spec', () => {
  it('builds the bare VM: q35, OVMF with its vars disk on the first disk’s storage, virtio-scsi-single, agent, tags', () => {
    expect(bareVm(spec({ disks, tags: ['web'], description: 'hello' }), 9001)).toEqual({
      node: 'pve1',
      vmid: 9001,
      name: 'web1',
      machine: 'q35',
      bios: 'ovmf',
      efidisk: { storage: 'local-lvm', efitype: '4m', preEnrolledKeys: true },
      cores: 2,
      sockets: 1,
      memory: 2048,
      ostype: 'l26',
      scsihw: 'virtio-scsi-single',
      agent: 'enabled=1',
      tags: ['web'],
      description: 'hello',
    });
    expect(bareVm(spec({ disks, efiStorage: 'efi' }), 9001).efidisk.storage).toBe('efi');
    expect(bareVm(spec({ efiStorage: 'efi' }), 9001)).not.toHaveProperty('description');
  });

  it("enrolls Microsoft's Secure Boot keys unless the spec turns Secure Boot off (an image with an unsigned boot loader)", () => {
    expect(bareVm(spec({ disks }), 9001).efidisk.preEnrolledKeys).toBe(true);
    expect(bareVm(spec({ disks, secureBoot: true }), 9001).efidisk.preEnrolledKeys).toBe(true);
    expect(bareVm(spec({ disks, secureBoot: false }), 9001).efidisk.preEnrolledKeys).toBe(false);
  });

  it('sets the ISO as ide2, a boot order of disks, CD-ROM and NICs, and the extras', () => {
    expect(
      vmOptions(
        spec({
          disks,
          iso: 'local:iso/d.iso',
          nics: [
            { slot: 'net0', network: 'vmbr0' },
            { slot: 'net1', network: 'v100' },
          ],
          extras: { rng0: 'source=/dev/urandom' },
        }),
      ),
    ).toEqual({
      ide2: 'local:iso/d.iso,media=cdrom',
      boot: 'order=scsi0;scsi1;ide2;net0;net1',
      rng0: 'source=/dev/urandom',
    });
    expect(vmOptions(spec({ disks: [disks[0]] }))).toEqual({ boot: 'order=scsi0' });
    expect(vmOptions(spec({ efiStorage: 'local-lvm' }))).toEqual({});
  });

  it('lists what must exist before anything is built, once each', () => {
    expect(
      requirements(
        spec({
          disks,
          efiStorage: 'fast',
          iso: 'local:iso/d.iso',
          nics: [
            { slot: 'net0', network: 'vmbr0' },
            { slot: 'net1', network: 'vmbr0' },
          ],
        }),
      ),
    ).toEqual({
      node: 'pve1',
      storages: ['fast', 'local-lvm'],
      networks: ['vmbr0'],
      iso: 'local:iso/d.iso',
    });
    expect(requirements(spec({ disks: [disks[0]] }))).toEqual({ node: 'pve1', storages: ['local-lvm'], networks: [] });
  });

  it('names and addresses', () => {
    expect(fqdn('Web1', 'lab.example.com.')).toBe('web1.lab.example.com');
    expect(hostAddress('192.0.2.10/24')).toBe('192.0.2.10');
    expect(hostAddress('192.0.2.10')).toBe('192.0.2.10');
    expect(nicIndex('net12')).toBe(12);
  });
});

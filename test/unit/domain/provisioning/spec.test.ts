import {
  specFromRecord,
  validateSpec,
  type NetboxVmRecord,
  type SpecDefaults,
} from '../../../../src/domain/provisioning';

const DEFAULTS: SpecDefaults = {
  node: 'pve1',
  storage: 'local-lvm',
  network: 'vmbr0',
  prefix: '192.0.2.0/24',
  dnsZone: 'lab.example.com',
  ostype: 'l26',
  nicModel: 'virtio',
  tags: ['ferry'],
  extras: { rng0: 'source=/dev/urandom' },
  start: false,
};

const RECORD: NetboxVmRecord = {
  id: 42,
  name: 'web1',
  status: 'planned',
  cluster: 'pve-lab',
  vcpus: 1.5,
  memoryMB: 2048,
  diskMB: 20_000,
  tags: ['web', 'ferry'],
  fields: { vlan: 20, iso: 'local:iso/debian.iso', owner: 'web team' },
};

const minimal = {
  name: 'vm1',
  node: 'pve1',
  cores: 1,
  memoryMiB: 512,
  disks: [{ slot: 'scsi0', storage: 'local-lvm', sizeGiB: 8 }],
};

function problems(input: unknown): string[] {
  const result = validateSpec(input, 'spec.yaml');
  if (result.ok) throw new Error('expected problems');
  return result.problems;
}

describe('validateSpec: images and cloud-init', () => {
  it('takes a disk made from an image (importFrom) and a cloud-init drive with a prefix', () => {
    const spec = {
      ...minimal,
      netboxId: 3,
      nics: [{ slot: 'net0', network: 'vmbr0' }],
      prefix: '192.0.2.0/24',
      cloudInit: true,
      disks: [{ slot: 'scsi0', storage: 'local-lvm', sizeGiB: 8, importFrom: 'local:import/debian.qcow2' }],
    };
    const result = validateSpec(spec);
    expect(result.ok && result.spec.disks[0]!.importFrom).toBe('local:import/debian.qcow2');
    expect(result.ok && result.spec.cloudInit).toBe(true);
  });

  it("refuses an importFrom that is no volume id, cloud-init without a prefix, and a disk in the cloud-init drive's slot", () => {
    expect(
      problems({
        ...minimal,
        disks: [{ slot: 'scsi0', storage: 'local-lvm', sizeGiB: 8, importFrom: 'debian.qcow2' }],
      }),
    ).toEqual(['spec.yaml: disks.0.importFrom: a volume id such as local:import/debian.qcow2']);
    expect(
      problems({
        ...minimal,
        cloudInit: true,
        disks: [...minimal.disks, { slot: 'scsi30', storage: 'local-lvm', sizeGiB: 1 }],
      }),
    ).toEqual([
      'spec.yaml: cloudInit: the cloud-init drive takes scsi30: move that disk',
      'spec.yaml: cloudInit: the cloud-init drive carries the NetBox address: set prefix too',
    ]);
  });
});

describe('validateSpec', () => {
  it('accepts a minimal spec and fills the defaults', () => {
    expect(validateSpec(minimal)).toEqual({
      ok: true,
      spec: {
        ...minimal,
        sockets: 1,
        ostype: 'l26',
        disks: [{ ...minimal.disks[0], options: {} }],
        nics: [],
        extras: {},
        tags: [],
        start: false,
      },
    });
  });

  it('lists every problem, each with its source and path', () => {
    expect(
      problems({
        name: '-web',
        node: 'pve 1',
        cores: 1.5,
        sockets: 0,
        memoryMiB: 8,
        iso: 'debian.iso',
        disks: [{ slot: 'scsi31', storage: '1bad', sizeGiB: 2.5, options: { cache: 'none', secret: 'x' } }],
        nics: [{ slot: 'eth0', network: 'vmbr0', vlan: 0, model: 'ne2k', mac: 'nope' }],
        extras: { args: '-cpu host' },
        tags: ['bad tag'],
        prefix: '192.0.2.0',
        dnsZone: 'bad zone',
        vmid: 99,
      }),
    ).toEqual([
      'spec.yaml: name: a DNS label: letters, digits and dashes, at most 63, not starting or ending with a dash',
      'spec.yaml: vmid: at least 100',
      'spec.yaml: node: a Proxmox node name',
      'spec.yaml: cores: a whole number',
      'spec.yaml: sockets: at least 1',
      'spec.yaml: memoryMiB: at least 16 MiB',
      'spec.yaml: iso: an ISO volume such as local:iso/debian.iso',
      'spec.yaml: disks.0.slot: scsi0–30, virtio0–15 or sata0–5 (ide2 holds the ISO)',
      'spec.yaml: disks.0.storage: a Proxmox storage id such as local-lvm',
      'spec.yaml: disks.0.sizeGiB: a whole number of GiB',
      'spec.yaml: disks.0.options: only iothread, discard, ssd, cache, backup, replicate, aio',
      'spec.yaml: nics.0.slot: net0–net31',
      'spec.yaml: nics.0.vlan: VLAN 1–4094',
      expect.stringMatching(/^spec\.yaml: nics\.0\.model: Invalid option: expected one of "virtio"\|"e1000"/),
      'spec.yaml: nics.0.mac: a MAC address such as BC:24:11:00:00:01',
      expect.stringMatching(/^spec\.yaml: extras: only rng0, serial0/),
      'spec.yaml: tags.0: a Proxmox tag: letters, digits, - _ + .',
      'spec.yaml: prefix: an IPv4 prefix such as 192.0.2.0/24',
      'spec.yaml: dnsZone: a DNS zone such as lab.example.com',
    ]);
  });

  it('says what is missing and what is unknown', () => {
    expect(problems({ name: 'vm1', colour: 'red' })).toEqual([
      'spec.yaml: cores: missing',
      'spec.yaml: memoryMiB: missing',
      'spec.yaml: (top level): unknown key(s) "colour"',
      // In the same pass: the rules across keys run even while types are wrong or values missing.
      'spec.yaml: efiStorage: needed when there is no disk (the EFI vars disk goes on the first disk’s storage otherwise)',
    ]);
    expect(problems('not an object')).toEqual([
      'spec.yaml: (top level): Invalid input: expected object, received string',
    ]);
  });

  it('refuses combinations that cannot be built', () => {
    expect(
      problems({
        ...minimal,
        disks: [...minimal.disks, { slot: 'scsi0', storage: 'local-lvm', sizeGiB: 1 }],
        nics: [
          { slot: 'net0', network: 'vmbr0' },
          { slot: 'net0', network: 'vmbr1' },
        ],
        prefix: '192.0.2.0/24',
        dnsZone: 'lab.example.com',
      }),
    ).toEqual([
      'spec.yaml: disks: slot scsi0 is used twice',
      'spec.yaml: nics: slot net0 is used twice',
      'spec.yaml: prefix: addresses are allocated in NetBox: set netboxId too',
    ]);
    expect(problems({ ...minimal, disks: [], netboxId: 3, prefix: '192.0.2.0/24' })).toEqual([
      'spec.yaml: efiStorage: needed when there is no disk (the EFI vars disk goes on the first disk’s storage otherwise)',
      'spec.yaml: prefix: an address needs a NIC: add one to nics',
    ]);
    expect(problems({ ...minimal, dnsZone: 'lab.example.com' })).toEqual([
      'spec.yaml: dnsZone: DNS records need an address: set prefix too',
    ]);
  });
});

describe('specFromRecord', () => {
  it('leaves the node open when neither ferry_node nor provisioning.node names one (placement picks it)', () => {
    const { node: _node, ...noNode } = DEFAULTS;
    const result = specFromRecord(RECORD, noNode);
    expect(result.ok).toBe(true);
    expect(result.ok && result.spec).not.toHaveProperty('node');
    expect(specFromRecord({ ...RECORD, fields: { node: 'pve2' } }, noNode)).toMatchObject({
      ok: true,
      spec: { node: 'pve2' },
    });
  });

  it('builds the spec from the record, its custom fields and the defaults', () => {
    const result = specFromRecord(RECORD, DEFAULTS);
    expect(result).toEqual({
      ok: true,
      spec: {
        name: 'web1',
        netboxId: 42,
        node: 'pve1',
        cores: 2,
        sockets: 1,
        memoryMiB: 2048,
        ostype: 'l26',
        iso: 'local:iso/debian.iso',
        disks: [{ slot: 'scsi0', storage: 'local-lvm', sizeGiB: 20, options: { iothread: 1, discard: 'on' } }],
        nics: [{ slot: 'net0', network: 'vmbr0', model: 'virtio', vlan: 20 }],
        extras: { rng0: 'source=/dev/urandom' },
        tags: ['ferry', 'web'],
        prefix: '192.0.2.0/24',
        dnsZone: 'lab.example.com',
        start: false,
        description: 'Provisioned by ferry from NetBox VM 42; owner: web team',
      },
    });
  });

  it('lets the custom fields win over the defaults', () => {
    const result = specFromRecord(
      { ...RECORD, fields: { vmid: 9001, node: 'pve2', storage: 'fast', network: 'v100' } },
      { ...DEFAULTS, efiStorage: 'efi' },
    );
    expect(result.ok && result.spec).toMatchObject({
      vmid: 9001,
      node: 'pve2',
      efiStorage: 'efi',
      disks: [{ storage: 'fast' }],
      nics: [{ network: 'v100', model: 'virtio' }],
      description: 'Provisioned by ferry from NetBox VM 42',
    });
  });

  it('makes the first disk from ferry_image, with a cloud-init drive for the address; without a prefix that is refused, naming the field', () => {
    const result = specFromRecord({ ...RECORD, fields: { image: 'local:import/debian.qcow2' } }, DEFAULTS);
    expect(result.ok && result.spec).toMatchObject({
      disks: [{ slot: 'scsi0', sizeGiB: 20, importFrom: 'local:import/debian.qcow2' }],
      cloudInit: true,
    });
    expect(specFromRecord(RECORD, DEFAULTS)).not.toMatchObject({ spec: { cloudInit: expect.anything() } });
    const { prefix: _prefix, ...noPrefix } = DEFAULTS;
    expect(specFromRecord({ ...RECORD, fields: { image: 'local:import/debian.qcow2' } }, noPrefix)).toEqual({
      ok: false,
      problems: [
        'NetBox VM "web1" (id 42): custom field ferry_image (its address goes on a cloud-init drive: set provisioning.prefix): the cloud-init drive carries the NetBox address: set prefix too',
      ],
    });
    expect(specFromRecord({ ...RECORD, fields: { image: 'debian.qcow2' } }, DEFAULTS)).toEqual({
      ok: false,
      problems: ['NetBox VM "web1" (id 42): custom field ferry_image: a volume id such as local:import/debian.qcow2'],
    });
  });

  it("turns Secure Boot off when the defaults say so (provisioning.secureBoot: false), else leaves the spec's default", () => {
    expect(specFromRecord(RECORD, { ...DEFAULTS, secureBoot: false })).toMatchObject({
      ok: true,
      spec: { secureBoot: false },
    });
    expect(specFromRecord(RECORD, DEFAULTS)).not.toMatchObject({ spec: { secureBoot: expect.anything() } });
  });

  it('names DNS only with a prefix, and no address without one', () => {
    const { prefix: _prefix, ...noPrefix } = DEFAULTS;
    const result = specFromRecord(RECORD, noPrefix);
    expect(result.ok && [result.spec.prefix, result.spec.dnsZone]).toEqual([undefined, undefined]);
  });

  it('names the NetBox fields a person must fix', () => {
    const result = specFromRecord(
      { ...RECORD, name: 'Web Server', vcpus: undefined, memoryMB: undefined, diskMB: undefined, fields: { vlan: 0 } },
      DEFAULTS,
    );
    expect(result).toEqual({
      ok: false,
      problems: [
        'NetBox VM "Web Server" (id 42): name: a DNS label: letters, digits and dashes, at most 63, not starting or ending with a dash',
        'NetBox VM "Web Server" (id 42): vcpus: missing',
        'NetBox VM "Web Server" (id 42): memory (MB): missing',
        'NetBox VM "Web Server" (id 42): custom field ferry_vlan: VLAN 1–4094',
        'NetBox VM "Web Server" (id 42): disk (MB): not set; ferry needs the size of the VM\'s disk',
      ],
    });
    expect(specFromRecord({ ...RECORD, diskMB: 0 }, DEFAULTS)).toEqual({
      ok: false,
      problems: ['NetBox VM "web1" (id 42): disk (MB): not set; ferry needs the size of the VM\'s disk'],
    });
  });
});

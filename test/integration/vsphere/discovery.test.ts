import { execFileSync, spawnSync } from 'node:child_process';
import { openSync, readSync, closeSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { DiscoveryResult } from '../../../src/vsphere';
import { ScopeError, VsphereConnectionError, VsphereFault } from '../../../src/vsphere';
import { element, typed } from '../../../src/vsphere/envelope';
import { asMoRef } from '../../../src/vsphere/read';
import { waitForTask } from '../../../src/vsphere/tasks';
import { child } from '../../../src/vsphere/xml';
import { guestImage } from '../../../lab/guest-image/paths';
import { readVmConfig, renderVmConf } from '../../../lab/guest-image/per-vm-config';
import { vmwareGuestImage } from '../../../lab/vmware-guest/paths';
import { readVmwareGuestInterfaces } from '../../../lab/vmware-guest/per-vm-config';
import { ESTATE, GUEST_VMS, guestVmConfig, NAMED_VMS, vmwareFirmwareOf } from '../../../lab/vcsim/estate';
import { diskPattern, PATTERN_BYTES } from '../../../lab/vcsim/vmdk';
import { nfsMigrationDir } from '../../../lab/shared-paths';
import { startTestVcsim, TEST_EXTRA_VMS, type TestVcsim } from '../../helpers/vcsim';

describe('vSphere discovery against vcsim', () => {
  jest.setTimeout(120_000);
  let sim: TestVcsim;
  let paged: DiscoveryResult;
  let pagedStats: { roundTrips: number; bytesReceived: number };

  beforeAll(async () => {
    sim = await startTestVcsim();
    const client = sim.client();
    paged = await client.discover({ scope: {}, pageSize: 7 });
    pagedStats = { ...client.stats };
  });

  afterAll(() => sim?.stop());

  const vm = (name: string) => {
    const found = paged.inventory.vms.find((v) => v.name === name);
    if (!found) throw new Error(`${name} not discovered`);
    return found;
  };
  const pgKey = (name: string) => paged.inventory.portgroups.find((p) => p.name === name)!.key;

  it('pages with a small page size, and round trips grow with pages only', async () => {
    const objects = paged.inventory.vms.length + paged.inventory.portgroups.length + paged.inventory.datastores.length;
    expect(paged.inventory.vms).toHaveLength(NAMED_VMS.length + TEST_EXTRA_VMS);
    expect(paged.pages).toBeGreaterThanOrEqual(Math.ceil(objects / 7));
    // RetrieveServiceContent, Login, CreateContainerView, pages, DestroyView
    expect(pagedStats.roundTrips).toBe(paged.pages + 4);

    const client = sim.client();
    const onePage = await client.discover({ scope: {}, pageSize: 10_000 });
    expect(onePage.pages).toBe(1);
    expect(client.stats.roundTrips).toBe(5);
    expect(onePage.inventory).toEqual(paged.inventory);
    expect(paged.skipped).toEqual([]);
  });

  it('classifies every VLAN shape, including one-range trunks and the uplink portgroup', () => {
    const byName = Object.fromEntries(paged.inventory.portgroups.map((p) => [p.name, p]));
    const P = ESTATE.portgroups;
    expect(byName[P.vlan100]).toMatchObject({
      vlan: { kind: 'access', vlanId: 100 },
      uplink: false,
      switchName: ESTATE.switchName,
    });
    expect(byName[P.vlan200]).toMatchObject({ vlan: { kind: 'access', vlanId: 200 }, uplink: false });
    expect(byName[P.trunk]).toMatchObject({ vlan: { kind: 'trunk', ranges: ESTATE.trunkRanges }, uplink: false });
    expect(byName[P.pvlan]).toMatchObject({ vlan: { kind: 'pvlan', pvlanId: ESTATE.pvlanId }, uplink: false });
    expect(byName[P.untagged]).toMatchObject({ vlan: { kind: 'none' }, uplink: false });
    const uplinks = paged.inventory.portgroups.filter((p) => p.uplink);
    expect(uplinks).toHaveLength(1);
    expect(uplinks[0]).toMatchObject({
      vlan: { kind: 'trunk', ranges: [{ start: 0, end: 4094 }] },
      switchName: ESTATE.switchName,
    });
    expect(new Set(paged.inventory.portgroups.map((p) => p.switchUuid)).size).toBe(1);
  });

  it('describes the EFI VM with three NICs (and their portgroups) and two disks', () => {
    const web = vm('mig-web01');
    expect(web).toMatchObject({
      firmware: 'efi',
      numCpu: 4,
      numCoresPerSocket: 1,
      memoryMb: 8192,
      guestId: 'ubuntu64Guest',
      powerState: 'poweredOn',
      template: false,
      hasSnapshot: false,
      host: { name: 'DC0_C0_H0' },
      cluster: { name: ESTATE.cluster },
      folder: '/DC0/vm/apps',
    });
    expect(web.moid).toMatch(/^vm-\d+$/);
    expect(web.instanceUuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(
      web.nics.map((n) => [
        n.label,
        n.deviceType,
        n.backing.kind === 'dvportgroup' ? n.backing.portgroupKey : n.backing.kind,
      ]),
    ).toEqual([
      ['Network adapter 1', 'vmxnet3', pgKey(ESTATE.portgroups.vlan100)],
      ['Network adapter 2', 'e1000e', pgKey(ESTATE.portgroups.vlan200)],
      ['Network adapter 3', 'vmxnet3', pgKey(ESTATE.portgroups.vlan100)],
    ]);
    for (const n of web.nics) expect(n.macAddress).toMatch(/^([0-9a-f]{2}:){5}[0-9a-f]{2}$/);
    expect(new Set(web.nics.map((n) => n.macAddress)).size).toBe(3);
    expect(
      web.disks.map((d) => [
        d.label,
        d.controllerType,
        d.controllerBusNumber,
        d.unitNumber,
        d.capacityBytes,
        d.fileName,
        d.datastore?.name,
        d.diskMode,
      ]),
    ).toEqual([
      [
        'Hard disk 1',
        'pvscsi',
        0,
        0,
        20 * 1024 ** 3,
        '[nfs-migration] mig-web01/mig-web01.vmdk',
        'nfs-migration',
        'persistent',
      ],
      [
        'Hard disk 2',
        'pvscsi',
        0,
        1,
        50 * 1024 ** 3,
        '[nfs-migration] mig-web01/mig-web01_1.vmdk',
        'nfs-migration',
        'persistent',
      ],
    ]);
  });

  it('describes the BIOS VM with two cores per socket, snapshots, independent disks, RDMs, standard networks and templates', () => {
    expect(vm('mig-db01')).toMatchObject({
      firmware: 'bios',
      numCpu: 4,
      numCoresPerSocket: 2,
      memoryMb: 16384,
      powerState: 'poweredOff',
      folder: '/DC0/vm/db',
    });
    expect(vm('mig-db01').disks.map((d) => d.controllerType)).toEqual(['lsilogic', 'lsilogic']);
    expect(vm('mig-snap01').hasSnapshot).toBe(true);
    expect(vm('mig-indep01').disks.map((d) => d.diskMode)).toEqual(['persistent', 'independent_persistent']);
    expect(vm('mig-rdm01').disks[1]).toMatchObject({
      rdm: { compatibilityMode: 'physicalMode', deviceName: expect.stringMatching(/^\/vmfs\/devices\/disks\/naa\./) },
      diskMode: 'independent_persistent',
    });
    expect(vm('mig-rdm01').disks[0]!.rdm).toBeUndefined();
    const std = vm('mig-std01');
    expect(std.nics[0]!.backing).toEqual({
      kind: 'network',
      networkName: ESTATE.standardNetwork,
      networkMoid: expect.stringMatching(/^network-/),
    });
    expect(std.host?.name).toBe(ESTATE.standaloneHost);
    expect(std.cluster).toBeUndefined();
    expect(vm('mig-tmpl01')).toMatchObject({ template: true, folder: '/DC0/vm/templates', firmware: 'efi' });
    expect(vm('mig-legacy01').disks[0]).toMatchObject({
      fileName: '[LocalDS_0] mig-legacy01/mig-legacy01.vmdk',
      datastore: { name: ESTATE.localDatastore },
    });
    // single NIC, single disk: one-element arrays stay arrays
    expect(vm('scale-0001').nics).toHaveLength(1);
    expect(vm('scale-0001').disks).toHaveLength(1);
  });

  it('reports the datastores at the lab folders, nfs-migration being the one Proxmox mounts', () => {
    const nfs = paged.inventory.datastores.find((d) => d.name === ESTATE.migrationDatastore);
    expect(nfs).toMatchObject({ type: 'NFS', url: nfsMigrationDir(sim.stateDir) });
    expect(paged.inventory.datastores.map((d) => d.name)).toEqual([ESTATE.localDatastore, ESTATE.migrationDatastore]);
  });

  it('has real VMDK files where the disks point, each with its own content', () => {
    const disk = vm('mig-web01').disks[1]!;
    const file = path.join(nfsMigrationDir(sim.stateDir), 'mig-web01', 'mig-web01_1.vmdk');
    const info = JSON.parse(execFileSync('qemu-img', ['info', '--output=json', file], { encoding: 'utf8' })) as {
      format: string;
      'virtual-size': number;
    };
    expect(info).toMatchObject({ format: 'vmdk', 'virtual-size': disk.capacityBytes });
    const fd = openSync(path.join(path.dirname(file), 'mig-web01_1-flat.vmdk'), 'r');
    const head = Buffer.alloc(PATTERN_BYTES);
    readSync(fd, head, 0, PATTERN_BYTES, 0);
    closeSync(fd);
    expect(head.equals(diskPattern(disk.fileName))).toBe(true);
    const legacy = path.join(
      sim.stateDir,
      'vcsim',
      'datastores',
      ESTATE.localDatastore,
      'mig-legacy01',
      'mig-legacy01.vmdk',
    );
    expect(execFileSync('qemu-img', ['info', legacy], { encoding: 'utf8' })).toMatch(/virtual size: 32 GiB/);
  });

  it('discovers the real-guest VMs with their firmware, fixed MACs, and the addresses and host name Tools reports', () => {
    expect(GUEST_VMS.map((v) => [v.name, v.firmware, v.guest.variant])).toEqual([
      ['mig-app01', 'bios', 'mac'],
      ['mig-app02', 'efi', 'mac'],
      ['mig-ens01', 'bios', 'vmware-bios'],
      ['mig-ens02', 'efi', 'vmware-efi'],
    ]);
    for (const spec of GUEST_VMS) {
      const found = vm(spec.name);
      expect(found).toMatchObject({
        firmware: spec.firmware,
        powerState: 'poweredOn',
        guestHostName: spec.guest.hostname,
      });
      expect(found.nics.map((n) => n.macAddress)).toEqual(spec.nics.map((n) => n.mac));
      // vcsim reports a customized address with prefix length 0, which ferry takes as unknown.
      expect(found.guestAddresses).toEqual(
        spec.guest.addresses.map((a, i) => ({
          mac: spec.nics[i]!.mac,
          addresses: [a.address.split('/')[0]],
          source: 'tools',
        })),
      );
    }
    // Guests without customization have no address in guest.net: no record of one.
    expect(vm('mig-web01').guestAddresses).toBeUndefined();
    expect(vm('mig-web01').guestHostName).toBeUndefined();
  });

  it('boots each of them from its own copy of the guest disk, with its settings written in', async () => {
    const image = guestImage();
    const bytes = (file: string, offset: number, length: number) => {
      const out = Buffer.alloc(length);
      const fd = openSync(file, 'r');
      readSync(fd, out, 0, length, offset);
      closeSync(fd);
      return out;
    };
    const head = (file: string) => bytes(file, 0, image.manifest.esp.offsetBytes);
    /** Whether two disks hold the same root filesystem (cmp: exit 0 same, 1 different). */
    const sameRoot = (a: string, b: string) => {
      const { offsetBytes, sizeBytes } = image.manifest.root;
      return spawnSync('cmp', ['-s', '-i', String(offsetBytes), '-n', String(sizeBytes), a, b]).status === 0;
    };
    const labGuests = GUEST_VMS.filter((v) => !vmwareFirmwareOf(v.guest.variant));
    for (const spec of labGuests) {
      const [disk, ...rest] = vm(spec.name).disks;
      expect(rest).toEqual([]);
      expect(disk).toMatchObject({
        capacityBytes: image.manifest.diskBytes,
        fileName: `[${ESTATE.migrationDatastore}] ${spec.name}/${spec.name}.vmdk`,
        datastore: { name: ESTATE.migrationDatastore },
      });
      const descriptor = path.join(nfsMigrationDir(sim.stateDir), spec.name, `${spec.name}.vmdk`);
      const info = JSON.parse(
        execFileSync('qemu-img', ['info', '--output=json', descriptor], { encoding: 'utf8' }),
      ) as { format: string; 'virtual-size': number };
      expect(info).toMatchObject({ format: 'vmdk', 'virtual-size': image.manifest.diskBytes });
      expect(readFileSync(descriptor, 'utf8')).toContain(`"${spec.name}-flat.vmdk"`);
      const flat = path.join(path.dirname(descriptor), `${spec.name}-flat.vmdk`);
      // The VM's own settings (hostname, MACs, addresses) on the ESP of its copy…
      expect(await readVmConfig(flat, image)).toBe(renderVmConf(guestVmConfig(spec)));
      expect(await readVmConfig(flat, image)).toContain(
        `HOSTNAME=${spec.name}\nNIC0_MAC=${spec.nics[0]!.mac}\nNIC0_ADDRESS=${spec.guest.addresses[0]!.address}`,
      );
      // …and its variant's boot sectors, partition table and root filesystem, byte for byte.
      const variant = spec.guest.variant as 'mac' | 'ens192';
      const own = image.flat(variant);
      const other = image.flat(variant === 'mac' ? 'ens192' : 'mac');
      expect(head(flat).equals(head(own))).toBe(true);
      expect(sameRoot(flat, own)).toBe(true);
      expect(sameRoot(flat, other)).toBe(false);
    }
    // Each VM has its own settings: no two copies carry the same.
    const settings = await Promise.all(
      labGuests.map((v) =>
        readVmConfig(path.join(nfsMigrationDir(sim.stateDir), v.name, `${v.name}-flat.vmdk`), image),
      ),
    );
    expect(new Set(settings).size).toBe(labGuests.length);
  });

  it("gives each VMware-native guest its copy of the image, its addresses on ifupdown's ens192 (and ens224) in its root", async () => {
    const image = vmwareGuestImage();
    const vmware = GUEST_VMS.filter((v) => vmwareFirmwareOf(v.guest.variant));
    expect(vmware.map((v) => v.name)).toEqual(['mig-ens01', 'mig-ens02']);
    for (const spec of vmware) {
      const firmware = vmwareFirmwareOf(spec.guest.variant)!;
      const [disk] = vm(spec.name).disks;
      expect(disk).toMatchObject({
        capacityBytes: image.manifest.diskBytes,
        fileName: `[${ESTATE.migrationDatastore}] ${spec.name}/${spec.name}.vmdk`,
      });
      const flat = path.join(nfsMigrationDir(sim.stateDir), spec.name, `${spec.name}-flat.vmdk`);
      const interfaces = await readVmwareGuestInterfaces(flat, firmware, image);
      spec.guest.addresses.forEach((a, i) => {
        expect(interfaces).toContain(
          `allow-hotplug ${image.manifest.nicNames[i]}\niface ${image.manifest.nicNames[i]} inet static\n\taddress ${a.address}`,
        );
      });
      // The image's boot sectors and partition table, byte for byte (GRUB's core image sits in the first MiB on BIOS).
      const first = (file: string) => {
        const out = Buffer.alloc(1024 * 1024);
        const fd = openSync(file, 'r');
        readSync(fd, out, 0, out.length, 0);
        closeSync(fd);
        return out;
      };
      expect(first(flat).equals(first(image.flat(firmware)))).toBe(true);
    }
  });

  it("falls back to the guestinfo.ferry.ipaddress.<n> options where Tools reports no address, and keeps Tools' where it does", async () => {
    const client = sim.client();
    const setOptions = async (name: string, options: Record<string, string>) => {
      const spec = element(
        'spec',
        Object.entries(options).map(([key, value]) =>
          typed('extraConfig', 'OptionValue', element('key', key), typed('value', 'xsd:string', value)),
        ),
      );
      const moid = vm(name).moid;
      const response = await client.session.call('ReconfigVM_Task', { type: 'VirtualMachine', value: moid }, [spec]);
      await waitForTask(client.session, asMoRef(child(response, 'returnval')!, 'ReconfigVM_Task'), {
        step: 'test',
        method: 'ReconfigVM_Task',
        object: moid,
      });
    };
    await setOptions('mig-db01', { 'guestinfo.ferry.ipaddress.0': '203.0.113.40/24' });
    await setOptions('mig-app01', { 'guestinfo.ferry.ipaddress.0': '192.0.2.99/24' });
    try {
      const { inventory } = await client.discover({ scope: { datacenter: 'DC0', folders: ['apps', 'db'] } });
      const byName = (name: string) => inventory.vms.find((v) => v.name === name)!;
      expect(byName('mig-db01').guestAddresses).toEqual([
        { mac: vm('mig-db01').nics[0]!.macAddress, addresses: ['203.0.113.40/24'], source: 'extraConfig' },
      ]);
      expect(byName('mig-app01').guestAddresses).toEqual(vm('mig-app01').guestAddresses);
      expect(byName('mig-web01').guestAddresses).toBeUndefined();
    } finally {
      // An empty value removes an option.
      await setOptions('mig-db01', { 'guestinfo.ferry.ipaddress.0': '' });
      await setOptions('mig-app01', { 'guestinfo.ferry.ipaddress.0': '' });
    }
    const after = await client.discover({ scope: { datacenter: 'DC0', folders: ['db'] } });
    expect(after.inventory.vms.find((v) => v.name === 'mig-db01')!.guestAddresses).toBeUndefined();
  });

  it('scopes the query to a datacenter, its folders and clusters before retrieving', async () => {
    const client = sim.client();
    const apps = await client.discover({ scope: { datacenter: 'DC0', folders: ['apps'] }, pageSize: 5 });
    expect(apps.inventory.vms.map((v) => v.name).sort()).toEqual(
      NAMED_VMS.filter((v) => v.folder === 'apps')
        .map((v) => v.name)
        .sort(),
    );
    expect(apps.inventory.portgroups.length).toBe(paged.inventory.portgroups.length);

    const cluster = await client.discover({
      scope: { datacenter: '/DC0', clusters: [ESTATE.cluster], folders: ['templates'] },
    });
    const names = cluster.inventory.vms.map((v) => v.name);
    expect(names).not.toContain('mig-std01');
    expect(names).toContain('mig-tmpl01');
    expect(names).toHaveLength(paged.inventory.vms.length - 1);
    expect(cluster.inventory.vms.find((v) => v.name === 'mig-web01')?.folder).toBe('/DC0/vm/apps');
  });

  it('refuses a scope that does not exist or holds no VMs, saying which', async () => {
    const client = sim.client();
    await expect(client.discover({ scope: { datacenter: 'DC9' } })).rejects.toThrow(
      new ScopeError('datacenter /DC9 not found in vCenter'),
    );
    await expect(client.discover({ scope: { datacenter: 'DC0', folders: ['nope'] } })).rejects.toThrow(
      'folder /DC0/vm/nope not found in vCenter',
    );
    await expect(client.discover({ scope: { datacenter: 'DC0', folders: ['apps/mig-web01'] } })).rejects.toThrow(
      '/DC0/vm/apps/mig-web01 is a VirtualMachine; a folder scope must contain VMs',
    );
    await expect(client.discover({ scope: { clusters: ['DC0_C0'] } })).rejects.toThrow(/needs the datacenter/);
  });

  it('verifies TLS against the configured CA only', async () => {
    const untrusted = sim.client({ caFile: undefined });
    const err = await untrusted.about().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VsphereConnectionError);
    expect((err as VsphereConnectionError).category).toBe('invalid');
    expect((err as Error).message).toMatch(/TLS: https:\/\/127\.0\.0\.1:\d+\/sdk: .*not trusted .*set vsphere\.caFile/);
    const unverified = sim.client({ caFile: undefined, validateCerts: false });
    expect((await unverified.about()).apiVersion).toBe('8.0.3.0');
    expect(unverified.tls).toBe('not-verified');
    expect(sim.client().tls).toBe('verified');
  });

  it('surfaces a refused login as a typed, non-retryable fault without the password', async () => {
    const client = sim.client({ password: 'wrong<&>' });
    const err = await client.discover().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VsphereFault);
    expect(err).toMatchObject({ faultType: 'InvalidLogin', category: 'permission', retryable: false });
    expect(JSON.stringify(err) + (err as Error).message).not.toContain('wrong<&>');
  });
});

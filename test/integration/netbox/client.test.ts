import { z } from 'zod';
import { NetboxClient } from '../../../src/netbox/client';
import { ferryFields } from '../../../src/netbox/custom-fields';
import { type NetboxError, NetboxStaleError } from '../../../src/netbox/errors';
import { idOnly, ipAddressSchema, macAddressSchema, vmInterfaceSchema } from '../../../src/netbox/schemas';
import { startNetbox, type NetboxServer } from '../../../lab/netbox-server';
import { parseBaseline, type Baseline } from '../../../src/domain/change';
import { vmRecordWithHardware } from '../../../src/netbox/records';
import { LAB_NETBOX, seedLabNetbox, type SeededNetbox } from '../../../lab/netbox-seed';
import { SAMPLE_ISO } from '../../../lab/proxmox-sim/sample-cluster';
import { startNetboxProxy } from '../../helpers/netbox-proxy';
import { startFaultProxy } from '../../../lab/chaos/fault-proxy';

/** ferry's NetBox client against a real NetBox 4.7 (PyPI package on PostgreSQL and Redis). */
describe('NetBox client against a real NetBox', () => {
  jest.setTimeout(120_000);
  let netbox: NetboxServer;
  let client: NetboxClient;
  let seeded: SeededNetbox;
  const clientWith = (token: string, url = netbox.url) =>
    NetboxClient.fromConfig({ url, token, validateCerts: true }, { timeoutMs: 5000 });

  beforeAll(async () => {
    netbox = await startNetbox();
    client = clientWith(netbox.tokenV2);
    seeded = await seedLabNetbox(client);
  });
  afterAll(async () => {
    await client?.close();
    await netbox?.stop();
  });

  /** A new VM in the lab cluster, for tests that change one. */
  async function newVm(name: string, status = 'planned'): Promise<number> {
    const { data } = await client.http.request('POST', 'api/virtualization/virtual-machines/', {
      schema: idOnly,
      body: { name, status, cluster: seeded.clusterId },
    });
    return data.id;
  }

  it('authenticates with a v1 token (Token …) and a v2 token (Bearer nbt_…), and says when a token is refused', async () => {
    expect(netbox.tokenV1).toMatch(/^[0-9A-Za-z]{40}$/);
    expect(netbox.tokenV2).toMatch(/^nbt_[0-9A-Za-z]+\.[0-9A-Za-z]+$/);
    for (const token of [netbox.tokenV1, netbox.tokenV2]) {
      const c = clientWith(token);
      expect((await c.status())['netbox-version']).toBe(netbox.version);
      await c.close();
    }
    const wrong = clientWith(`nbt_${'A'.repeat(12)}.${'b'.repeat(40)}`);
    const attempt = wrong.status();
    await expect(attempt).rejects.toMatchObject({
      category: 'permission',
      status: 403,
      message: expect.stringContaining('check NETBOX_TOKEN'),
    });
    await expect(attempt).rejects.not.toThrow(/bbbbbbbb/); // the token never appears in messages
    await wrong.close();
  });

  it('lists VMs by status, cluster, tag and custom field, following pages', async () => {
    const names = (vms: Array<{ name: string }>) => vms.map((v) => v.name).sort();
    const lab = LAB_NETBOX.vms.map((v) => v.name).sort();
    expect(names(await client.listVirtualMachines({ status: 'planned', cluster: LAB_NETBOX.cluster }))).toEqual(lab);
    expect(names(await client.listVirtualMachines({ clusterId: seeded.clusterId, tag: 'ferry' }))).toEqual(lab);
    expect(names(await client.listVirtualMachines({ customFields: { ferry_vmid: 9002 } }))).toEqual(['lab-web2']);
    expect(
      names(
        await client.listVirtualMachines({ customFields: { ferry_owner: 'web team' }, status: ['planned', 'staged'] }),
      ),
    ).toEqual(['lab-web1', 'lab-web2']);
    expect(await client.listVirtualMachines({ status: 'decommissioning', cluster: LAB_NETBOX.cluster })).toEqual([]);
    // One VM per page: the three only come back if `next` is followed.
    const paged = await client.http.list('api/virtualization/virtual-machines/', { tag: 'ferry', limit: 1 }, idOnly);
    expect(paged).toHaveLength(3);
  });

  it("reads a VM with ferry's custom fields, typed", async () => {
    const { value: vm, etag } = await client.getVirtualMachine(seeded.vmIds['lab-db1']!);
    expect(etag).toMatch(/^W\/"/);
    expect(vm).toMatchObject({ name: 'lab-db1', status: { value: 'planned' }, vcpus: 4, memory: 8192 });
    expect(ferryFields(vm)).toEqual({
      vmid: 9003,
      node: 'pve1',
      storage: 'local-lvm',
      network: 'vmbr0',
      vlan: 30,
      iso: `local:iso/${SAMPLE_ISO}`,
      owner: 'data team',
    });
    // NetBox itself enforces the validation ferry's fields were created with.
    await expect(client.updateVirtualMachine(vm.id, { custom_fields: { ferry_vlan: 5000 } })).rejects.toMatchObject({
      category: 'invalid',
      status: 400,
      message: expect.stringContaining(
        "HTTP 400: __all__: Invalid value for custom field 'ferry_vlan': Value must not exceed 4094",
      ),
    });
  });

  it('moves a VM planned → staged once, guarded by its ETag; a stale If-Match is refused and reported', async () => {
    const id = await newVm('etag-vm');
    const first = await client.getVirtualMachine(id);
    // Someone else changes the VM after ferry read it.
    await client.updateVirtualMachine(id, { description: 'edited by a person' });
    const stale = client.updateVirtualMachine(id, { status: 'staged' }, { ifMatch: first.etag });
    await expect(stale).rejects.toBeInstanceOf(NetboxStaleError);
    await expect(stale).rejects.toMatchObject({
      category: 'conflict',
      retryable: true,
      status: 412,
      currentEtag: expect.stringMatching(/^W\//),
    });
    expect((await client.getVirtualMachine(id)).value.status.value).toBe('planned');

    expect(await client.transitionStatus(id, 'planned', 'staged')).toMatchObject({ outcome: 'updated', guarded: true });
    expect((await client.transitionStatus(id, 'planned', 'staged')).outcome).toBe('unchanged');
    await expect(client.transitionStatus(id, 'active', 'offline')).rejects.toMatchObject({
      category: 'policy',
      message: expect.stringContaining('is staged; ferry moves it to offline only from active'),
    });
    await expect(client.transitionStatus(id, 'staged', 'bogus')).rejects.toMatchObject({
      category: 'invalid',
      status: 400,
    });
  });

  it('says a transition was not guarded when NetBox sends no ETag (before 4.6)', async () => {
    // The real NetBox behind a proxy that drops ETag headers, as NetBox 4.5 answers.
    const proxy = await startNetboxProxy(netbox.url, { dropEtags: true });
    const old = clientWith(netbox.tokenV2, proxy.url);
    try {
      const id = await newVm('no-etag-vm');
      const moved = await old.transitionStatus(id, 'planned', 'staged');
      expect(moved).toMatchObject({ outcome: 'updated', guarded: false, vm: { etag: undefined } });
      expect((await client.getVirtualMachine(id)).value.status.value).toBe('staged');
    } finally {
      await old.close();
      await proxy.close();
    }
  });

  it('moves a VM seen at a version without reading it again; reads, and checks, when it changed since', async () => {
    const proxy = await startNetboxProxy(netbox.url);
    const watched = clientWith(netbox.tokenV2, proxy.url);
    const vmPath = (id: number) => `/api/virtualization/virtual-machines/${id}/`;
    try {
      // Unchanged since seen: one guarded write, no read.
      const id = await newVm('seen-vm');
      const seen = await client.getVirtualMachine(id);
      const moved = await watched.transitionStatus(id, 'planned', 'staged', { etag: seen.etag!, status: 'planned' });
      expect(moved).toMatchObject({
        outcome: 'updated',
        guarded: true,
        vm: { value: { status: { value: 'staged' } } },
      });
      expect(moved.vm.etag).not.toBe(seen.etag);
      expect(proxy.requests).toEqual([`PATCH ${vmPath(id)} 200`]);

      // Edited by a person since: NetBox refuses the guarded write, the client reads and writes again.
      const edited = await newVm('edited-vm');
      const before = await client.getVirtualMachine(edited);
      await client.updateVirtualMachine(edited, { description: 'a person was here' });
      proxy.requests.length = 0;
      expect(
        (await watched.transitionStatus(edited, 'planned', 'staged', { etag: before.etag!, status: 'planned' }))
          .outcome,
      ).toBe('updated');
      expect(proxy.requests).toEqual([
        `PATCH ${vmPath(edited)} 412`,
        `GET ${vmPath(edited)} 200`,
        `PATCH ${vmPath(edited)} 200`,
      ]);
      expect((await client.getVirtualMachine(edited)).value).toMatchObject({
        status: { value: 'staged' },
        description: 'a person was here',
      });

      // Moved by a person to a status ferry does not move from: refused after the read, nothing written.
      const taken = await newVm('taken-vm');
      const planned = await client.getVirtualMachine(taken);
      await client.updateVirtualMachine(taken, { status: 'active' });
      await expect(
        watched.transitionStatus(taken, 'planned', 'staged', { etag: planned.etag!, status: 'planned' }),
      ).rejects.toMatchObject({
        category: 'policy',
        message: expect.stringContaining('is active; ferry moves it to staged only from planned'),
      });
      expect((await client.getVirtualMachine(taken)).value.status.value).toBe('active');
    } finally {
      await watched.close();
      await proxy.close();
    }
  });

  it('reads VMs without their config context, and creates an interface on a VM seen without any in one request', async () => {
    const id = await newVm('no-context-vm');
    const { value: vm } = await client.getVirtualMachine(id);
    expect(vm).not.toHaveProperty('config_context');
    expect(vm.interface_count).toBe(0);
    expect(vm).toHaveProperty('last_updated');

    const proxy = await startNetboxProxy(netbox.url);
    const watched = clientWith(netbox.tokenV2, proxy.url);
    try {
      const made = await watched.ensureInterface(id, 'net0', { enabled: true }, { vmHadNone: true });
      expect(made.outcome).toBe('created');
      expect(proxy.requests).toEqual(['POST /api/virtualization/interfaces/ 201']);
      // Made meanwhile by someone else (here: the call above): NetBox refuses the duplicate, and it is found.
      proxy.requests.length = 0;
      expect(await watched.ensureInterface(id, 'net0', { enabled: true }, { vmHadNone: true })).toEqual({
        outcome: 'unchanged',
        value: made.value,
      });
      expect(proxy.requests).toEqual([
        'POST /api/virtualization/interfaces/ 400',
        'GET /api/virtualization/interfaces/ 200',
      ]);
      expect((await client.getVirtualMachine(id)).value.interface_count).toBe(1);
    } finally {
      await watched.close();
      await proxy.close();
    }
  });

  it('refuses a CIDR that exists in several VRFs, naming them', async () => {
    const { data: vrf } = await client.http.request('POST', 'api/ipam/vrfs/', {
      schema: idOnly,
      body: { name: 'ferry-test-blue' },
    });
    const made: number[] = [];
    for (const body of [
      { prefix: '198.51.100.0/24' },
      { prefix: '198.51.100.0/24', vrf: vrf.id },
      { prefix: '198.51.101.0/24', vrf: vrf.id },
    ]) {
      made.push((await client.http.request('POST', 'api/ipam/prefixes/', { schema: idOnly, body })).data.id);
    }
    try {
      const ambiguous = client.getPrefix('198.51.100.0/24');
      await expect(ambiguous).rejects.toMatchObject({ category: 'invalid' });
      await expect(ambiguous).rejects.toThrow(
        `NetBox has 2 prefixes 198.51.100.0/24: global (id ${made[0]}), VRF ferry-test-blue (id ${made[1]}); ferry cannot tell which to allocate from`,
      );
      // One prefix of that CIDR, in a VRF, is not ambiguous.
      expect(await client.getPrefix('198.51.101.0/24')).toMatchObject({
        id: made[2],
        vrf: { name: 'ferry-test-blue' },
      });
    } finally {
      for (const id of made) await client.http.request('DELETE', `api/ipam/prefixes/${id}/`, { schema: z.unknown() });
      await client.http.request('DELETE', `api/ipam/vrfs/${vrf.id}/`, { schema: z.unknown() });
    }
  });

  it('lets only one of two concurrent transitions write', async () => {
    const id = await newVm('race-vm');
    const results = await Promise.allSettled([
      client.transitionStatus(id, 'planned', 'staged'),
      client.transitionStatus(id, 'planned', 'staged'),
    ]);
    const updated = results.filter((r) => r.status === 'fulfilled' && r.value.outcome === 'updated');
    expect(updated).toHaveLength(1);
    for (const r of results) {
      if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(NetboxStaleError);
      else expect(['updated', 'unchanged']).toContain(r.value.outcome);
    }
  });

  it('gives a VM an interface with a primary MAC object (NetBox 4.2+ model), idempotently', async () => {
    const id = await newVm('mac-vm');
    // Two attempts at once (a retried activity racing the first): one interface, both get it.
    const pair = await Promise.all([client.ensureInterface(id, 'net0'), client.ensureInterface(id, 'net0')]);
    expect(pair.map((r) => r.outcome).sort()).toEqual(['created', 'unchanged']);
    expect(pair[0].value.id).toBe(pair[1].value.id);
    const created = pair.find((r) => r.outcome === 'created')!;
    expect(await client.listInterfaces(id)).toHaveLength(1);
    expect(await client.ensureInterface(id, 'net0')).toMatchObject({
      outcome: 'unchanged',
      value: { id: created.value.id },
    });

    const mac = await client.ensurePrimaryMac(created.value.id, 'bc:24:11:0a:0b:0c');
    expect(mac.outcome).toBe('updated');
    expect(await client.ensurePrimaryMac(created.value.id, 'BC-24-11-0A-0B-0C')).toEqual({
      outcome: 'unchanged',
      macId: mac.macId,
    });
    // An interface the caller has just created skips the reads: the MAC is created and made primary all the same.
    const fresh = await client.ensureInterface(id, 'net1');
    const freshMac = await client.ensurePrimaryMac(fresh.value.id, 'bc:24:11:0a:0b:1c', { freshInterface: true });
    expect(freshMac.outcome).toBe('updated');
    expect(
      (
        await client.http.request('GET', `api/virtualization/interfaces/${fresh.value.id}/`, {
          schema: vmInterfaceSchema,
        })
      ).data.primary_mac_address,
    ).toMatchObject({
      id: freshMac.macId,
      mac_address: 'BC:24:11:0A:0B:1C',
    });
    const { data: iface } = await client.http.request('GET', `api/virtualization/interfaces/${created.value.id}/`, {
      schema: vmInterfaceSchema,
    });
    expect(iface.primary_mac_address).toMatchObject({ id: mac.macId, mac_address: 'BC:24:11:0A:0B:0C' });
    const { data: macObject } = await client.http.request('GET', `api/dcim/mac-addresses/${mac.macId}/`, {
      schema: macAddressSchema,
    });
    expect(macObject).toMatchObject({
      assigned_object_type: 'virtualization.vminterface',
      assigned_object_id: created.value.id,
    });

    const moved = await client.ensurePrimaryMac(created.value.id, 'BC:24:11:0A:0B:0D');
    expect(moved.macId).not.toBe(mac.macId);
    await expect(client.ensurePrimaryMac(created.value.id, 'not-a-mac')).rejects.toThrow(
      '"not-a-mac" is not a MAC address',
    );
  });

  it('reads what day 2 needs: interfaces with their 802.1Q mode, VLANs, MTU, MAC and ferry fields, virtual disks, the stored baseline', async () => {
    const vlan = async (vid: number) =>
      (await client.http.request('POST', 'api/ipam/vlans/', { schema: idOnly, body: { vid, name: `day2-${vid}` } }))
        .data.id;
    const [v20, v30, v40] = [await vlan(2020), await vlan(2030), await vlan(2040)];
    const id = await newVm('day2-vm');
    const other = await newVm('day2-other');
    const { value: net0 } = await client.ensureInterface(id, 'net0', {
      mode: 'tagged',
      untagged_vlan: v20,
      tagged_vlans: [v40, v30],
      mtu: 9000,
      enabled: false,
      custom_fields: { ferry_network: 'vmbr1', ferry_rate: 12.5, ferry_queues: 4, ferry_firewall: true },
    });
    await client.ensurePrimaryMac(net0.id, 'bc:24:11:0a:0b:2c');
    await client.ensureInterface(other, 'net0');
    const disk = (vm: number, name: string, size: number, custom_fields = {}) =>
      client.http.request('POST', 'api/virtualization/virtual-disks/', {
        schema: idOnly,
        body: { virtual_machine: vm, name, size, custom_fields },
      });
    await disk(id, 'scsi1', 10_240, { ferry_storage: 'fast', ferry_disk_options: 'iothread=1,ssd=1' });
    await disk(other, 'scsi0', 2048);
    const baseline: Baseline = { version: 1, applied: { memory: '2048', 'net0.tag': null }, accepted: {} };
    await client.updateVirtualMachine(id, { custom_fields: { ferry_applied: baseline } });

    const vms = await client.listVirtualMachines({ name: 'day2-vm' });
    const [interfaces, disks] = await Promise.all([
      client.listInterfaces([id, other]),
      client.listVirtualDisks([id, other]),
    ]);
    expect(interfaces).toHaveLength(2);
    expect(disks).toHaveLength(2);
    const record = vmRecordWithHardware(vms[0]!, interfaces, disks);
    expect(record.interfaces).toEqual([
      {
        id: net0.id,
        name: 'net0',
        enabled: false,
        mtu: 9000,
        mode: 'tagged',
        untaggedVlan: 2020,
        taggedVlans: expect.arrayContaining([2030, 2040]),
        mac: 'BC:24:11:0A:0B:2C',
        fields: { network: 'vmbr1', rate: 12.5, queues: 4, firewall: true },
      },
    ]);
    expect(record.disks).toEqual([
      {
        id: expect.any(Number),
        name: 'scsi1',
        sizeMB: 10_240,
        fields: { storage: 'fast', options: 'iothread=1,ssd=1' },
      },
    ]);
    expect(parseBaseline(vms[0]!.custom_fields.ferry_applied)).toEqual({ ok: true, baseline });

    // Several VMs at once (day 2's coalesced reads): each VM with only its own items and addresses.
    const { value: otherNet0 } = await client.ensureInterface(other, 'net0');
    const address = (iface: number, ip: string) =>
      client.http.request('POST', 'api/ipam/ip-addresses/', {
        schema: idOnly,
        body: { address: ip, assigned_object_type: 'virtualization.vminterface', assigned_object_id: iface },
      });
    await address(net0.id, '198.51.100.20/24');
    await address(otherNet0.id, '198.51.100.21/24');
    const both = await client.vmsWithHardware([id, other, 2_000_000_000]); // NetBox has no VM 2,000,000,000
    expect([...both.keys()].sort()).toEqual([id, other].sort()); // an unknown id is simply absent
    const mine = both.get(id)!;
    expect(mine.vm.name).toBe('day2-vm');
    expect(vmRecordWithHardware(mine.vm, mine.interfaces, mine.disks)).toEqual(record);
    expect(mine.addresses.map((a) => a.address)).toEqual(['198.51.100.20/24']);
    const theirs = both.get(other)!;
    expect([theirs.interfaces.map((i) => i.name), theirs.disks.map((d) => d.name)]).toEqual([['net0'], ['scsi0']]);
    expect(theirs.addresses.map((a) => a.address)).toEqual(['198.51.100.21/24']);

    // A cluster's disks by VM ids go in chunks: 200 ids in one query would be a 4.6 KB request line, which
    // NetBox's gunicorn refuses (HTTP 400), as it did for a 1,200-VM drift report. NetBox refuses an id it
    // does not have in these filters, so the VMs are real (one bulk create).
    const patient = NetboxClient.fromConfig(
      { url: netbox.url, token: netbox.tokenV2, validateCerts: true },
      { timeoutMs: 120_000 },
    );
    const { data: created } = await patient.http.request('POST', 'api/virtualization/virtual-machines/', {
      schema: z.array(idOnly),
      body: Array.from({ length: 198 }, (_, i) => ({ name: `day2-bulk-${i}`, cluster: seeded.clusterId })),
    });
    const many = [id, other, ...created.map((c) => c.id)];
    expect((await client.virtualDisksOfVms(many)).map((d) => d.name).sort()).toEqual(['scsi0', 'scsi1']);
    await patient.close();
  });

  it('allocates an address from a prefix, idempotently per interface, and makes it the primary IPv4', async () => {
    const id = await newVm('ip-vm');
    const iface = (await client.ensureInterface(id, 'net0')).value;
    const prefix = await client.getPrefix(LAB_NETBOX.prefix);
    const first = await client.allocateIp(prefix, iface.id, {
      dnsName: 'ip-vm.lab.ferry.test',
      description: 'ferry test',
    });
    expect(first.outcome).toBe('created');
    expect(first.value.address).toMatch(/^192\.0\.2\.\d+\/24$/);
    expect(first.value).toMatchObject({
      dns_name: 'ip-vm.lab.ferry.test',
      assigned_object_id: iface.id,
      status: { value: 'active' },
    });
    expect(await client.allocateIp(prefix, iface.id)).toMatchObject({
      outcome: 'unchanged',
      value: { id: first.value.id },
    });

    // An address just created cannot be the primary yet: set without reading the VM first.
    const primary = await client.setPrimaryIp4(id, first.value.id, { freshIp: true });
    expect(primary).toMatchObject({
      outcome: 'updated',
      vm: { etag: expect.stringMatching(/^W\//), value: { primary_ip4: { id: first.value.id } } },
    });
    expect(await client.setPrimaryIp4(id, first.value.id)).toEqual({ outcome: 'unchanged' });
    expect((await client.getVirtualMachine(id)).value.primary_ip4).toMatchObject({
      id: first.value.id,
      address: first.value.address,
    });
  });

  it('never hands out one address twice to concurrent allocations, and says when the prefix is full', async () => {
    const { data: small } = await client.http.request('POST', 'api/ipam/prefixes/', {
      schema: idOnly,
      body: { prefix: '198.51.100.0/28', status: 'active' },
    });
    const prefix = { id: small.id, prefix: '198.51.100.0/28' };
    const vm = await newVm('crowd-vm');
    const interfaces = await Promise.all(Array.from({ length: 16 }, (_, i) => client.ensureInterface(vm, `eth${i}`)));

    // 16 allocations at once keep NetBox's workers busy for a while on a loaded machine: the point here is
    // what they return, so no answer may be cut off by the suite's short timeout.
    const patient = NetboxClient.fromConfig(
      { url: netbox.url, token: netbox.tokenV2, validateCerts: true },
      { timeoutMs: 90_000 },
    );
    const results = await Promise.allSettled(
      interfaces.map(({ value }) => patient.allocateIp(prefix, value.id)),
    ).finally(() => patient.close());
    const addresses = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value.value.address] : []));
    const refusals = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as NetboxError] : []));
    // A /28 has 14 host addresses: 14 allocations succeed, each with its own address; 2 are refused.
    expect(addresses).toHaveLength(14);
    expect(new Set(addresses).size).toBe(14);
    expect(refusals).toHaveLength(2);
    for (const refusal of refusals) {
      expect(refusal).toMatchObject({
        category: 'invalid',
        status: 409,
        message: expect.stringContaining('NetBox prefix 198.51.100.0/28 has no free address left'),
      });
    }
    const stored = await client.http.list('api/ipam/ip-addresses/', { parent: prefix.prefix }, ipAddressSchema);
    expect(stored.map((ip) => ip.address).sort()).toEqual([...addresses].sort());
  });

  it('takes a 409 while the prefix has free addresses for a conflict to retry, not for a full prefix', async () => {
    // A 409 that is not NetBox's "insufficient resources" (here: a proxy's, as the chaos suite injects)
    // once failed a provision for good with "no free address left" though the prefix had room.
    const proxy = await startFaultProxy({ upstream: netbox.url, faults: { seed: 1, conflictRate: 1 } });
    const behind = NetboxClient.fromConfig({ url: proxy.url, token: netbox.tokenV2, validateCerts: true });
    try {
      const iface = (await client.ensureInterface(await newVm('conflict-vm'), 'net0')).value;
      const refusal = await behind
        .allocateIp(await client.getPrefix(LAB_NETBOX.prefix), iface.id, {}, { freshInterface: true })
        .catch((err: unknown) => err as NetboxError);
      expect(refusal).toMatchObject({ category: 'conflict', status: 409, retryable: true });
      expect((refusal as Error).message).not.toContain('no free address');
      expect(proxy.counts().conflict).toBe(1);
    } finally {
      await behind.close();
      await proxy.close();
    }
  });

  it('releases addresses and deletes interfaces and VMs, finding "already gone" fine', async () => {
    const id = await newVm('teardown-vm');
    const iface = (await client.ensureInterface(id, 'net0')).value;
    const { macId } = await client.ensurePrimaryMac(iface.id, 'BC:24:11:00:00:99');
    const ip = (await client.allocateIp(await client.getPrefix(LAB_NETBOX.prefix), iface.id)).value;
    await client.setPrimaryIp4(id, ip.id);

    expect(await client.interfaceAddresses(iface.id)).toHaveLength(1);
    expect(await client.releaseIp(ip.id)).toBe('deleted');
    expect(await client.releaseIp(ip.id)).toBe('absent');
    expect(await client.interfaceAddresses(iface.id)).toEqual([]);
    expect((await client.getVirtualMachine(id)).value.primary_ip4).toBeNull();

    expect(await client.deleteInterface(iface.id)).toBe('deleted');
    expect(await client.deleteInterface(iface.id)).toBe('absent');
    await expect(
      client.http.request('GET', `api/dcim/mac-addresses/${macId}/`, { schema: idOnly }),
    ).rejects.toMatchObject({ category: 'not-found' });
    expect(await client.listInterfaces(id)).toEqual([]);

    expect(await client.deleteVirtualMachine(id)).toBe('deleted');
    expect(await client.deleteVirtualMachine(id)).toBe('absent');
    await expect(client.getVirtualMachine(id)).rejects.toMatchObject({ category: 'not-found', status: 404 });
  });

  it('reports an unreachable NetBox as transient and a wrong URL clearly', async () => {
    const nowhere = clientWith(netbox.tokenV2, 'http://127.0.0.1:9');
    await expect(nowhere.status()).rejects.toMatchObject({
      category: 'transient',
      message: expect.stringContaining('NetBox is unreachable (ECONNREFUSED)'),
    });
    await nowhere.close();
    const notNetbox = clientWith(netbox.tokenV2, `${netbox.url}/static`);
    await expect(notNetbox.status()).rejects.toMatchObject({ category: 'not-found', status: 404 });
    await notNetbox.close();
  });
});

import { FLAVOURS, startSim, type SimFixture } from '../../helpers/proxmox';

/** The simulator rejects what PVE rejects, with PVE's 400 shape, checked against each flavour's schema. */
describe.each(FLAVOURS)('simulator request validation, PVE %s schema', (flavour) => {
  let fx: SimFixture;
  beforeAll(async () => {
    fx = await startSim(flavour);
    const created = await fx.raw('POST', '/api2/json/nodes/pve1/qemu', { form: { vmid: '150', name: 'v150' } });
    expect(created.status).toBe(200);
    await fx.sim.cluster.tasks.idle();
  });
  afterAll(() => fx.stop());

  const put = (form: Record<string, string>) => fx.raw('PUT', '/api2/json/nodes/pve1/qemu/150/config', { form });

  it("a misspelled parameter gets a 400 naming it, in PVE's shape", async () => {
    const r = await fx.raw('GET', '/api2/json/cluster/resources?tpye=vm');
    expect(r.status).toBe(400);
    expect(r.statusText).toBe('Parameter verification failed.');
    expect(r.body).toEqual({
      data: null,
      message: 'Parameter verification failed.\n',
      errors: { tpye: 'property is not defined in schema and the schema does not allow additional properties' },
    });
  });

  it.each([
    [{ cores: 'two' }, 'cores', "type check ('integer') failed - got 'two'"],
    [{ onboot: 'yes' }, 'onboot', "type check ('boolean') failed - got 'yes'"],
    [
      { ostype: 'linux' },
      'ostype',
      "value 'linux' does not have a value in the enumeration 'other, wxp, w2k, w2k3, w2k8, wvista, win7, win8, win10, win11, l24, l26, solaris'",
    ],
    [{ cores: '0' }, 'cores', 'value must have a minimum value of 1'],
    [
      { scsi31: 'local-lvm:1' },
      'scsi31',
      'property is not defined in schema and the schema does not allow additional properties',
    ],
    [
      { virtio16: 'local-lvm:1' },
      'virtio16',
      'property is not defined in schema and the schema does not allow additional properties',
    ],
    [
      { net0: 'virtio,bridge=vmbr0,vlan=5' },
      'net0',
      'invalid format - format error\nnet0.vlan: property is not defined in schema and the schema does not allow additional properties',
    ],
    [
      { net0: 'virtio,bridge=vmbr0,trunks=10;x' },
      'net0',
      'invalid format - format error\nnet0.trunks: value does not match the regex pattern',
    ],
    [
      { net0: 'virtio=zz:24:11:00:00:01,bridge=vmbr0' },
      'net0',
      'invalid format - format error\nnet0.macaddr: invalid format - value does not look like a valid unicast MAC address',
    ],
    [
      { scsi0: 'local-lvm:1,cache=fast' },
      'scsi0',
      "invalid format - format error\nscsi0.cache: value 'fast' does not have a value in the enumeration 'none, writethrough, writeback, unsafe, directsync'",
    ],
    [
      { machine: 'q35-bogus' },
      'machine',
      'invalid format - format error\nmachine.type: value does not match the regex pattern',
    ],
    [
      { rng0: 'source=/dev/zero' },
      'rng0',
      "invalid format - format error\nrng0.source: value '/dev/zero' does not have a value in the enumeration '/dev/urandom, /dev/random, /dev/hwrng'",
    ],
    [
      { boot: 'order=scsi0;floppy0' },
      'boot',
      "invalid format - format error\nboot.order: invalid format - invalid boot device 'floppy0'",
    ],
    [{ name: 'not a dns name' }, 'name', 'invalid format - value does not look like a valid DNS name'],
    [{ tags: 'ok;bad tag!' }, 'tags', "invalid format - invalid tag 'tag!'"],
    [
      { efidisk0: 'local-lvm:1,efitype=8m' },
      'efidisk0',
      "invalid format - format error\nefidisk0.efitype: value '8m' does not have a value in the enumeration '2m, 4m'",
    ],
    [{ memory: '8' }, 'memory', 'invalid format - format error\nmemory.current: value must have a minimum value of 16'],
  ])('rejects %j (%s)', async (form, param, message) => {
    const r = await put(form as Record<string, string>);
    expect(r.status).toBe(400);
    expect(r.body.errors).toEqual({ [param]: message });
  });

  it('accepts the options ferry writes (indexed keys, property strings, JSON booleans)', async () => {
    const form = {
      scsi30: 'local-lvm:1,iothread=1,discard=on,cache=none',
      net31: 'virtio=BC:24:11:AA:BB:CC,bridge=vmbr0,tag=10,firewall=1,trunks=20;30-40',
      machine: 'pc-q35-9.2+pve1',
      rng0: 'source=/dev/urandom,max_bytes=1024,period=1000',
      boot: 'order=scsi30;net31',
      agent: 'enabled=1,fstrim_cloned_disks=1',
      tags: 'ferry;wave-1',
      memory: '2048',
      cpu: 'x86-64-v2-AES,flags=+aes',
    };
    const r = await put(form);
    expect([r.status, r.body.errors]).toEqual([200, undefined]);
    const json = await fx.raw('PUT', '/api2/json/nodes/pve1/qemu/150/config', { json: { onboot: true, cores: 2 } });
    expect(json.status).toBe(200);
    const config = (await fx.raw('GET', '/api2/json/nodes/pve1/qemu/150/config')).body.data;
    // Stored as qemu-server's print_net writes it: model=MAC first, then the options sorted by name.
    expect(config).toMatchObject({
      onboot: 1,
      cores: 2,
      memory: '2048',
      net31: 'virtio=BC:24:11:AA:BB:CC,bridge=vmbr0,firewall=1,tag=10,trunks=20;30-40',
    });
  });

  it('reports a missing required parameter and a wrong path value', async () => {
    const r = await fx.raw('POST', '/api2/json/nodes/pve1/qemu', { form: { name: 'novmid' } });
    expect(r.body.errors).toEqual({ vmid: 'property is missing and it is not optional' });
    const small = await fx.raw('GET', '/api2/json/nodes/pve1/qemu/99/config');
    expect(small.body.errors).toEqual({ vmid: 'value must have a minimum value of 100' });
  });

  it('checks SDN ids (2–8 characters) and, per flavour, the lock-token parameter', async () => {
    const long = await fx.raw('POST', '/api2/json/cluster/sdn/zones', {
      form: { zone: 'waytoolongzone', type: 'simple' },
    });
    expect(long.body.errors).toEqual({
      zone: "invalid format - zone ID 'waytoolongzone' can't be more length than 8 characters",
    });
    const withToken = await fx.raw('POST', '/api2/json/cluster/sdn/zones', {
      form: { zone: 'tok', type: 'simple', 'lock-token': 'x' },
    });
    if (flavour === '8.4') {
      expect(withToken.body.errors).toEqual({
        'lock-token': 'property is not defined in schema and the schema does not allow additional properties',
      });
    } else {
      // pve-network refuses a token only while a lock is held (and the token is not its own).
      expect(withToken.status).toBe(200);
      expect((await fx.raw('DELETE', '/api2/json/cluster/sdn/zones/tok', { form: { 'lock-token': 'y' } })).status).toBe(
        200,
      );
    }
    const lock = await fx.raw('POST', '/api2/json/cluster/sdn/lock');
    if (flavour === '8.4') {
      expect(lock.status).toBe(501);
      expect(lock.statusText).toBe("Method 'POST /api2/json/cluster/sdn/lock' not implemented");
    } else {
      expect(lock.status).toBe(200);
      expect(lock.body.data).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      const wrongToken = await fx.raw('POST', '/api2/json/cluster/sdn/zones', {
        form: { zone: 'tok', type: 'simple', 'lock-token': 'x' },
      });
      expect(wrongToken.status).toBe(500);
      expect(wrongToken.statusText).toBe('create sdn zone object failed: invalid lock token provided!');
      const noToken = await fx.raw('PUT', '/api2/json/cluster/sdn');
      expect(noToken.statusText).toBe('could not commit SDN config: invalid lock token provided!');
      expect((await fx.raw('DELETE', '/api2/json/cluster/sdn/lock', { form: { force: '1' } })).status).toBe(200);
    }
  });

  it('answers 501 for a path or method outside the schema, and 401 without credentials', async () => {
    expect((await fx.raw('GET', '/api2/json/nodes/pve1/nonsense')).status).toBe(501);
    expect((await fx.raw('DELETE', '/api2/json/version')).status).toBe(501);
    const anonymous = await fx.raw('GET', '/api2/json/version', { headers: { authorization: '' } });
    expect([anonymous.status, anonymous.statusText]).toEqual([401, 'No ticket']);
  });

  it('merges parameters as pve-http-server does: the query wins over the body; a path parameter repeated must agree', async () => {
    expect(
      (
        await fx.raw('PUT', '/api2/json/nodes/pve1/qemu/150/config?description=from-query', {
          form: { description: 'from-body' },
        })
      ).status,
    ).toBe(200);
    expect(fx.sim.cluster.vms.get(150)!.config.description).toBe('from-query');
    const conflict = await fx.raw('PUT', '/api2/json/nodes/pve1/qemu/150/config', {
      form: { vmid: '151', description: 'x' },
    });
    expect(conflict.status).toBe(400);
    expect(conflict.body.errors).toEqual({
      vmid: 'duplicate parameter (already defined in URI) with conflicting values!',
    });
    expect(
      (await fx.raw('PUT', '/api2/json/nodes/pve1/qemu/150/config', { form: { vmid: '150', description: 'same' } }))
        .status,
    ).toBe(200);
    expect(fx.sim.cluster.vms.get(150)!.config.description).toBe('same');
  });
});

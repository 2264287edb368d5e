import { FLAVOURS, startSim, type SimFixture } from '../../helpers/proxmox';
import { simApi, type SimApi } from '../../helpers/sim-api';

/**
 * Pools by id as pve-manager's Pool.pm answers them: members added (guests and storages), moved only
 * with `allow-move`, removed with `delete`; the pool read by query and by the deprecated path form
 * (with `poolid`, which that form's schema omits); deleted only when empty; errors worded as PVE's.
 */
describe.each(FLAVOURS)('pools, PVE %s', (flavour) => {
  let fx: SimFixture;
  let sim: SimApi;
  const fail = async (method: string, path: string, form: Record<string, string>) => {
    const r = await fx.raw(method, `/api2/json${path}`, { form });
    expect(r.status).toBe(500);
    return (r.body.message as string).trimEnd();
  };

  beforeAll(async () => {
    fx = await startSim(flavour);
    sim = simApi(fx);
    await sim.createVm(701, { name: 'one' });
    await sim.createVm(702, { name: 'two' }, 'pve2');
  });
  afterAll(() => fx.stop());

  it('update: comment, guests and storages in, a move only with allow-move, members out with delete', async () => {
    await sim.ok('POST', '/pools', { poolid: 'blue', comment: 'first' });
    await sim.ok('POST', '/pools', { poolid: 'green' });
    expect(
      await sim.ok('PUT', '/pools', { poolid: 'blue', vms: '701,702', storage: 'local-lvm', comment: 'the blue one' }),
    ).toBeNull();
    const [blue] = await sim.ok('GET', '/pools?poolid=blue');
    expect(blue).toMatchObject({ poolid: 'blue', comment: 'the blue one' });
    expect(blue.members.map((m: { id: string }) => m.id)).toEqual(['qemu/701', 'qemu/702', 'storage/pve1/local-lvm']);
    expect(blue.members[1]).toMatchObject({ type: 'qemu', vmid: 702, node: 'pve2', name: 'two', status: 'stopped' });
    expect(blue.members[2]).toMatchObject({
      type: 'storage',
      storage: 'local-lvm',
      node: 'pve1',
      plugintype: 'lvmthin',
      shared: 0,
      content: 'images,rootdir',
    });
    expect(
      (await sim.ok('GET', '/pools?poolid=blue&type=storage'))[0].members.map((m: { id: string }) => m.id),
    ).toEqual(['storage/pve1/local-lvm']);
    expect((await sim.ok('GET', '/cluster/resources?type=vm')).find((r: { vmid: number }) => r.vmid === 701).pool).toBe(
      'blue',
    );

    expect(await fail('PUT', '/pools', { poolid: 'green', vms: '701' })).toBe(
      "update pools failed: VM 701 belongs already to pool 'blue' and 'allow-move' is not set",
    );
    expect(await fail('PUT', '/pools', { poolid: 'blue', vms: '701' })).toBe(
      'update pools failed: VM 701 is already a pool member',
    );
    expect(await fail('PUT', '/pools', { poolid: 'nope', comment: 'x' })).toBe(
      "update pools failed: pool 'nope' does not exist",
    );
    await sim.ok('PUT', '/pools', { poolid: 'green', vms: '701', 'allow-move': '1' });
    expect((await sim.ok('GET', '/pools/green')).members.map((m: { vmid: number }) => m.vmid)).toEqual([701]);
    expect((await sim.ok('GET', '/pools/blue')).members.map((m: { id: string }) => m.id)).toEqual([
      'qemu/702',
      'storage/pve1/local-lvm',
    ]);

    expect(await fail('PUT', '/pools/green', { vms: '702', delete: '1' })).toBe(
      'update pools failed: VM 702 is not a pool member',
    );
    await sim.ok('PUT', '/pools/blue', { vms: '702', storage: 'local-lvm', delete: '1' });
    expect(await sim.ok('GET', '/pools/blue')).toEqual({ poolid: 'blue', comment: 'the blue one', members: [] });
  });

  it('delete: only an empty pool (a destroyed guest does not count), by query or by path', async () => {
    await sim.ok('POST', '/pools', { poolid: 'red' });
    await sim.ok('POST', '/pools', { poolid: 'red/inner' });
    await sim.ok('PUT', '/pools', { poolid: 'red', storage: 'local' });
    expect(await fail('DELETE', '/pools', { poolid: 'red' })).toBe(
      "delete pool failed: pool 'red' is not empty (contains pool 'red/inner')",
    );
    await sim.ok('DELETE', '/pools', { poolid: 'red/inner' });
    expect(await fail('DELETE', '/pools/red', {})).toBe(
      "delete pool failed: pool 'red' is not empty (contains storage 'local')",
    );
    await sim.ok('PUT', '/pools', { poolid: 'red', storage: 'local', delete: '1' });
    await sim.createVm(703, { pool: 'red' });
    expect(await fail('DELETE', '/pools', { poolid: 'red' })).toBe(
      "delete pool failed: pool 'red' is not empty (contains VM 703)",
    );
    expect(await sim.task('DELETE', '/nodes/pve1/qemu/703')).toBe('OK');
    expect(await sim.ok('DELETE', '/pools/red')).toBeNull();
    expect((await sim.ok('GET', '/pools')).map((p: { poolid: string }) => p.poolid)).not.toContain('red');
    expect(await fail('GET', '/pools/red', {})).toBe("pool 'red' does not exist");
    expect(await fail('DELETE', '/pools', { poolid: 'red' })).toBe("delete pool failed: pool 'red' does not exist");
  });
});

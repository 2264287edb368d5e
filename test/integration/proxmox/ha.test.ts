import { checkReturns, type ReturnsSchema } from '../../../lab/proxmox-sim/schema/returns';
import { loadSubset } from '../../../lab/proxmox-sim/schema/subset';
import { FLAVOURS, startSim, type SimFixture } from '../../helpers/proxmox';

/**
 * The simulator's HA endpoints as pve-ha-manager answers them: resources on both versions, groups on
 * 8.4 (and, deprecated, 9.1), rules on 9.1 only; parameters checked against each version's schema; a VM
 * that is an HA resource is destroyed only with `purge`, which removes it from the HA resources.
 */
let fx: SimFixture;
const call = async (method: string, apiPath: string, form?: Record<string, string>) => {
  const r = await fx.raw(method, `/api2/json${apiPath}`, form ? { form } : {});
  return {
    status: r.status,
    data: r.body?.data,
    message: r.body?.message as string | undefined,
    errors: r.body?.errors as Record<string, string> | undefined,
  };
};
const ok = async (method: string, apiPath: string, form?: Record<string, string>) => {
  const r = await call(method, apiPath, form);
  expect([method, apiPath, r.status, r.message]).toEqual([method, apiPath, 200, undefined]);
  return r.data;
};
const returnsOk = (flavour: '8.4' | '9.1', template: string, data: unknown) =>
  expect([
    template,
    checkReturns(loadSubset(flavour).endpoints[template]!.GET!.returns as ReturnsSchema, data),
  ]).toEqual([template, []]);

async function createVm(vmid: number): Promise<void> {
  const upid = await ok('POST', '/nodes/pve2/qemu', { vmid: String(vmid), name: `ha${vmid}`, memory: '512' });
  await fx.sim.cluster.tasks.idle();
  expect(fx.sim.cluster.tasks.get(upid)!.exitstatus).toBe('OK');
}

async function destroy(vmid: number, purge: boolean): Promise<string[]> {
  const upid = await ok('DELETE', `/nodes/pve2/qemu/${vmid}${purge ? '?purge=1' : ''}`);
  await fx.sim.cluster.tasks.idle();
  const task = fx.sim.cluster.tasks.get(upid)!;
  expect(task.exitstatus).toBe('OK');
  return ((await ok('GET', `/nodes/pve2/tasks/${encodeURIComponent(upid)}/log`)) as Array<{ t: string }>).map(
    (l) => l.t,
  );
}

describe.each(FLAVOURS)('HA endpoints, PVE %s', (flavour) => {
  beforeAll(async () => {
    fx = await startSim(flavour);
    for (const vmid of [701, 702, 703]) await createVm(vmid);
  });
  afterAll(() => fx.stop());

  it("resources: create (a bare VMID becomes vm:N), read, list, update, delete, with PVE's refusals", async () => {
    await ok('POST', '/cluster/ha/resources', { sid: '701', max_restart: '2', comment: 'from ferry' });
    const read = await ok('GET', '/cluster/ha/resources/vm:701');
    expect(read).toMatchObject({
      sid: 'vm:701',
      type: 'vm',
      max_restart: 2,
      comment: 'from ferry',
      digest: expect.stringMatching(/^[0-9a-f]{40}$/),
    });
    returnsOk(flavour, '/cluster/ha/resources', await ok('GET', '/cluster/ha/resources'));
    expect((await ok('GET', '/cluster/ha/resources?type=ct')) as unknown[]).toEqual([]);

    expect((await call('POST', '/cluster/ha/resources', { sid: 'vm:701' })).message).toBe(
      "resource ID 'vm:701' already defined\n",
    );
    expect((await call('POST', '/cluster/ha/resources', { sid: 'vm:799' })).message).toMatch(
      /^resource 'vm:799' does not exists? in cluster\n$/,
    );
    expect((await call('POST', '/cluster/ha/resources', { sid: '799' })).message).toBe(
      'unable do detect SID from VMID - VM/CT 799 does not exist\n',
    );
    const badSid = await call('POST', '/cluster/ha/resources', { sid: 'VM 1' });
    expect([badSid.status, badSid.errors]).toEqual([
      400,
      { sid: 'invalid format - value does not look like a valid ha resource id' },
    ]);
    const badState = await call('POST', '/cluster/ha/resources', { sid: 'vm:702', state: 'running' });
    expect(badState.status).toBe(400);
    expect(Object.keys(badState.errors ?? {})).toEqual(['state']);

    await ok('PUT', '/cluster/ha/resources/vm:701', { state: 'stopped', delete: 'comment' });
    expect(await ok('GET', '/cluster/ha/resources/vm:701')).not.toHaveProperty('comment');
    expect(await ok('GET', '/cluster/ha/resources/vm:701')).toMatchObject({ state: 'stopped' });
    expect(
      (await call('PUT', '/cluster/ha/resources/vm:701', { digest: '0'.repeat(40), state: 'started' })).message,
    ).toMatch(/file changed by other user/);

    await ok('DELETE', '/cluster/ha/resources/vm:701');
    const again = await call('DELETE', '/cluster/ha/resources/vm:701');
    expect([again.status, again.message]).toEqual([
      500,
      flavour === '8.4' ? "resource 'vm:701' is not HA managed\n" : "cannot delete service 'vm:701', not HA managed!\n",
    ]);
    expect(await ok('GET', '/cluster/ha/resources')).toEqual([]);
  });

  it("status/current: quorum, master, one LRM per node and a line per resource, in the schema's shape", async () => {
    await ok('POST', '/cluster/ha/resources', { sid: 'vm:702' });
    const status = (await ok('GET', '/cluster/ha/status/current')) as Array<Record<string, unknown>>;
    returnsOk(flavour, '/cluster/ha/status/current', status);
    expect(status.map((s) => s.id)).toEqual(['quorum', 'master', 'lrm:pve1', 'lrm:pve2', 'lrm:pve3', 'service:vm:702']);
    expect(status.at(-1)).toMatchObject({
      sid: 'vm:702',
      node: 'pve2',
      state: 'started',
      status: 'vm:702 (pve2, started)',
    });
    await ok('DELETE', '/cluster/ha/resources/vm:702');
  });

  it("destroy: an HA resource's VM is refused without purge; with purge it goes, and so does its HA resource", async () => {
    await ok('POST', '/cluster/ha/resources', { sid: 'vm:703', state: 'stopped' });
    const refused = await call('DELETE', '/nodes/pve2/qemu/703');
    expect([refused.status, refused.message]).toEqual([
      500,
      'unable to remove VM 703 - used in HA resources and purge parameter not set.\n',
    ]);
    expect(fx.sim.cluster.vms.has(703)).toBe(true);
    const log = await destroy(703, true);
    expect(log).toEqual(expect.arrayContaining(['NOTE: removed VM 703 from HA resource configuration.']));
    expect(fx.sim.cluster.vms.has(703)).toBe(false);
    expect(await ok('GET', '/cluster/ha/resources')).toEqual([]);
  });
});

describe('HA groups, PVE 8.4', () => {
  beforeAll(async () => {
    fx = await startSim('8.4');
    await createVm(711);
  });
  afterAll(() => fx.stop());

  it('groups: create, read, list, update, delete; a resource joins one; rules do not exist (501)', async () => {
    await ok('POST', '/cluster/ha/groups', { group: 'prod', nodes: 'pve1:2,pve2', restricted: '1' });
    expect(await ok('GET', '/cluster/ha/groups/prod')).toMatchObject({
      group: 'prod',
      type: 'group',
      nodes: 'pve1:2,pve2',
      restricted: 1,
    });
    returnsOk('8.4', '/cluster/ha/groups', await ok('GET', '/cluster/ha/groups'));
    const bad = await call('POST', '/cluster/ha/groups', { group: 'x1', nodes: 'pve1:high' });
    expect([bad.status, bad.errors]).toEqual([
      400,
      { nodes: 'invalid format - value does not look like a valid ha group node' },
    ]);
    expect((await call('POST', '/cluster/ha/groups', { group: 'x1', nodes: 'pve9' })).message).toBe(
      'cannot use non-existent node(s) pve9.\n',
    );

    await ok('POST', '/cluster/ha/resources', { sid: 'vm:711', group: 'prod' });
    expect(await ok('GET', '/cluster/ha/resources/vm:711')).toMatchObject({ group: 'prod' });
    expect((await call('DELETE', '/cluster/ha/groups/prod')).message).toBe("ha group is used by service 'vm:711'\n");
    expect((await call('PUT', '/cluster/ha/resources/vm:711', { group: 'nogroup' })).message).toBe(
      "HA group 'nogroup' does not exist\n",
    );
    // PVE 8 takes an unknown group on create, and the list shows the error.
    await ok('DELETE', '/cluster/ha/resources/vm:711');
    await ok('POST', '/cluster/ha/resources', { sid: 'vm:711', group: 'nogroup' });
    expect(await ok('GET', '/cluster/ha/resources')).toEqual([
      expect.objectContaining({ sid: 'vm:711', group: 'nogroup', errors: { group: "group 'nogroup' does not exist" } }),
    ]);
    await ok('DELETE', '/cluster/ha/resources/vm:711');

    await ok('PUT', '/cluster/ha/groups/prod', { nodes: 'pve3', delete: 'restricted' });
    expect(await ok('GET', '/cluster/ha/groups/prod')).not.toHaveProperty('restricted');
    await ok('DELETE', '/cluster/ha/groups/prod');
    expect(await ok('GET', '/cluster/ha/groups')).toEqual([]);
    expect((await call('GET', '/cluster/ha/rules')).status).toBe(501);
  });
});

describe('HA rules, PVE 9.1', () => {
  beforeAll(async () => {
    fx = await startSim('9.1');
    for (const vmid of [721, 722, 723, 724]) await createVm(vmid);
  });
  afterAll(() => fx.stop());

  it('with no group left, `group` is refused and node-affinity rules name resources; purge takes a resource out of them', async () => {
    expect(await ok('GET', '/cluster/ha')).toEqual([
      { id: 'status' },
      { id: 'resources' },
      { id: 'groups' },
      { id: 'rules' },
    ]);
    expect((await call('POST', '/cluster/ha/resources', { sid: 'vm:721', group: 'prod' })).message).toBe(
      "invalid parameter 'group': ha groups have been migrated to rules\n",
    );
    expect(
      (
        await call('POST', '/cluster/ha/rules', {
          rule: 'r1',
          type: 'node-affinity',
          nodes: 'pve1',
          resources: 'vm:721',
        })
      ).message,
    ).toBe('cannot use unmanaged resource(s) vm:721.\n');

    await ok('POST', '/cluster/ha/resources', { sid: 'vm:721' });
    await ok('POST', '/cluster/ha/resources', { sid: 'vm:722', failback: '0' });
    await ok('POST', '/cluster/ha/rules', {
      rule: 'keep-on-pve1',
      type: 'node-affinity',
      nodes: 'pve1:2,pve2',
      resources: 'vm:722,vm:721',
    });
    await ok('POST', '/cluster/ha/rules', {
      rule: 'apart',
      type: 'resource-affinity',
      affinity: 'negative',
      resources: 'vm:721,vm:722',
    });
    expect(
      (
        await call('POST', '/cluster/ha/rules', {
          rule: 'r2',
          type: 'node-affinity',
          resources: 'vm:721',
          nodes: 'pve9',
        })
      ).message,
    ).toBe('cannot use non-existent node(s) pve9.\n');
    expect(
      (
        await call('POST', '/cluster/ha/rules', {
          rule: 'r2',
          type: 'resource-affinity',
          resources: 'vm:721',
          affinity: 'sideways',
        })
      ).status,
    ).toBe(400);

    expect(await ok('GET', '/cluster/ha/rules/keep-on-pve1')).toMatchObject({
      rule: 'keep-on-pve1',
      type: 'node-affinity',
      nodes: 'pve1:2,pve2',
      resources: 'vm:721,vm:722',
      strict: 0,
      order: 1,
    });
    const rules = await ok('GET', '/cluster/ha/rules?type=node-affinity');
    returnsOk('9.1', '/cluster/ha/rules', rules);
    expect((rules as Array<{ rule: string }>).map((r) => r.rule)).toEqual(['keep-on-pve1']);
    expect(
      ((await ok('GET', '/cluster/ha/rules?resource=vm:722')) as Array<{ rule: string }>).map((r) => r.rule),
    ).toEqual(['keep-on-pve1', 'apart']);
    expect(await ok('GET', '/cluster/ha/resources/vm:722')).toMatchObject({ failback: 0 });

    await ok('PUT', '/cluster/ha/rules/keep-on-pve1', { type: 'node-affinity', strict: '1', resources: 'vm:721' });
    expect(await ok('GET', '/cluster/ha/rules/keep-on-pve1')).toMatchObject({ strict: 1, resources: 'vm:721' });

    // DELETE with purge (the default) takes vm:721 out of both rules; keep-on-pve1 is left empty and goes.
    await ok('DELETE', '/cluster/ha/resources/vm:721');
    expect(
      ((await ok('GET', '/cluster/ha/rules')) as Array<{ rule: string; resources: string }>).map((r) => [
        r.rule,
        r.resources,
      ]),
    ).toEqual([['apart', 'vm:722']]);
    await ok('DELETE', '/cluster/ha/resources/vm:722?purge=0');
    expect(
      ((await ok('GET', '/cluster/ha/rules')) as Array<{ rule: string; resources: string }>).map((r) => [
        r.rule,
        r.resources,
      ]),
    ).toEqual([['apart', 'vm:722']]);
    await ok('DELETE', '/cluster/ha/rules/apart');
    expect(await ok('GET', '/cluster/ha/rules')).toEqual([]);
  });

  it('a negative resource-affinity rule keeps at most as many resources apart as there are nodes (400)', async () => {
    for (const vmid of [721, 722, 723, 724]) await ok('POST', '/cluster/ha/resources', { sid: `vm:${vmid}` });
    const tooMany = await call('POST', '/cluster/ha/rules', {
      rule: 'spread',
      type: 'resource-affinity',
      affinity: 'negative',
      resources: 'vm:721,vm:722,vm:723,vm:724',
    });
    expect([tooMany.status, tooMany.message, tooMany.errors]).toEqual([
      400,
      "Rule 'spread' is invalid.\n",
      { resources: 'rule defines more resources than available nodes' },
    ]);
    await ok('POST', '/cluster/ha/rules', {
      rule: 'spread',
      type: 'resource-affinity',
      affinity: 'negative',
      resources: 'vm:721,vm:722,vm:723',
    });
    const grow = await call('PUT', '/cluster/ha/rules/spread', {
      type: 'resource-affinity',
      resources: 'vm:721,vm:722,vm:723,vm:724',
    });
    expect(grow.status).toBe(400);
    expect(await ok('GET', '/cluster/ha/rules/spread')).toMatchObject({ resources: 'vm:721,vm:722,vm:723' });
    await ok('DELETE', '/cluster/ha/rules/spread');
    for (const vmid of [721, 722, 723, 724]) await ok('DELETE', `/cluster/ha/resources/vm:${vmid}`);
  });

  it('while a group is left (not yet migrated), rules are refused and `group` is taken', async () => {
    await ok('POST', '/cluster/ha/groups', { group: 'legacy', nodes: 'pve1' });
    expect(
      (
        await call('POST', '/cluster/ha/rules', {
          rule: 'r3',
          type: 'node-affinity',
          nodes: 'pve1',
          resources: 'vm:721',
        })
      ).message,
    ).toBe('cannot create ha rule: ha groups have not been migrated yet\n');
    await ok('POST', '/cluster/ha/resources', { sid: 'vm:721', group: 'legacy' });
    expect(await ok('GET', '/cluster/ha/resources/vm:721')).toMatchObject({ group: 'legacy' });
    await ok('DELETE', '/cluster/ha/resources/vm:721');
    await ok('DELETE', '/cluster/ha/groups/legacy');
  });
});

import { FLAVOURS, startSim, type SimFixture } from '../../helpers/proxmox';
import { simApi, type SimApi } from '../../helpers/sim-api';

/**
 * A VM's firewall as pve-firewall's API keeps it: options with their digest, rules first-in and moved,
 * aliases and IP sets that rules may name (refs), a stale digest refused, a clone that takes the config
 * along; refusals worded as pve-firewall's.
 */
describe.each(FLAVOURS)('VM firewall, PVE %s', (flavour) => {
  let fx: SimFixture;
  let sim: SimApi;
  const vmid = 1100;
  const fw = (p = '') => `/nodes/pve1/qemu/${vmid}/firewall${p}`;
  const refused = async (method: string, p: string, form: Record<string, string> = {}) => {
    const r = await fx.raw(method, `/api2/json${p}`, { form });
    return [r.status, r.body.errors ?? (r.body.message as string).trimEnd()];
  };

  beforeAll(async () => {
    fx = await startSim(flavour);
    sim = simApi(fx);
    await sim.createVm(vmid, { name: 'walled', net0: 'virtio,bridge=vmbr0,firewall=1', scsi0: 'local-lvm:1' });
  });
  afterAll(() => fx.stop());

  it('options: typed flags, a digest that changes with them, a stale digest refused', async () => {
    const empty = await sim.ok('GET', fw('/options'));
    expect(Object.keys(empty)).toEqual(['digest']);
    await sim.ok('PUT', fw('/options'), { enable: '1', policy_in: 'DROP', log_level_in: 'info' });
    const set = await sim.ok('GET', fw('/options'));
    expect(set).toEqual({
      enable: 1,
      policy_in: 'DROP',
      log_level_in: 'info',
      digest: expect.stringMatching(/^[0-9a-f]{40}$/),
    });
    expect(set.digest).not.toBe(empty.digest);
    expect(await refused('PUT', fw('/options'), { enable: '0', digest: empty.digest })).toEqual([
      500,
      'detected modified configuration - file changed by other user? Try again.',
    ]);
    await sim.ok('PUT', fw('/options'), { delete: 'log_level_in', digest: set.digest });
    expect(await sim.ok('GET', fw('/options'))).not.toHaveProperty('log_level_in');
  });

  it('aliases, IP sets and rules that name them; new rules go first, moveto moves one; refs lists what rules may name', async () => {
    await sim.ok('POST', fw('/aliases'), { name: 'mgmt', cidr: '192.0.2.0/24', comment: 'management' });
    expect(await refused('POST', fw('/aliases'), { name: 'mgmt', cidr: '192.0.2.0/24' })).toEqual([
      400,
      { name: "alias 'mgmt' already exists" },
    ]);
    await sim.ok('POST', fw('/ipset'), { name: 'web', comment: 'front ends' });
    await sim.ok('POST', fw('/ipset/web'), { cidr: '198.51.100.10', comment: 'one' });
    await sim.ok('POST', fw('/ipset/web'), { cidr: '198.51.100.11', nomatch: '1' });
    expect(await sim.ok('GET', fw('/ipset/web'))).toEqual([
      { cidr: '198.51.100.10', comment: 'one', digest: expect.any(String) },
      { cidr: '198.51.100.11', nomatch: 1, digest: expect.any(String) },
    ]);
    expect(await refused('DELETE', fw('/ipset/web'))).toEqual([500, "IPSet 'web' is not empty"]);

    await sim.ok('POST', fw('/rules'), {
      type: 'in',
      action: 'ACCEPT',
      source: 'mgmt',
      proto: 'tcp',
      dport: '22',
      enable: '1',
    });
    await sim.ok('POST', fw('/rules'), { type: 'in', action: 'ACCEPT', source: '+web', proto: 'tcp', dport: '443' });
    await sim.ok('POST', fw('/rules'), { type: 'out', action: 'DROP', dest: '203.0.113.7' });
    const rules = await sim.ok('GET', fw('/rules'));
    expect(rules.map((r: { pos: number; dport?: string }) => [r.pos, r.dport])).toEqual([
      [0, undefined],
      [1, '443'],
      [2, '22'],
    ]);
    expect(rules[0]).toMatchObject({ type: 'out', action: 'DROP', dest: '203.0.113.7', ipversion: 4, enable: 0 });
    expect(rules[2]).toMatchObject({ enable: 1, source: 'mgmt' });
    expect(new Set(rules.map((r: { digest: string }) => r.digest)).size).toBe(1);
    await sim.ok('PUT', fw('/rules/2'), { moveto: '0', digest: rules[0].digest });
    expect((await sim.ok('GET', fw('/rules/0'))).dport).toBe('22');
    await sim.ok('PUT', fw('/rules/0'), { comment: 'ssh from management', delete: 'dport' });
    // get_rule answers `pos` as the path parameter came: a string.
    expect(await sim.ok('GET', fw('/rules/0'))).toMatchObject({
      pos: '0',
      comment: 'ssh from management',
      proto: 'tcp',
    });
    expect((await sim.ok('GET', fw('/rules/0'))).dport).toBeUndefined();

    expect(await refused('POST', fw('/rules'), { type: 'in', action: 'ALLOW' })).toEqual([
      400,
      { action: "unknown action 'ALLOW'" },
    ]);
    expect(await refused('POST', fw('/rules'), { type: 'in', action: 'ACCEPT', dport: '80' })).toEqual([
      400,
      { proto: "missing property - 'dport' requires this property" },
    ]);
    expect(await refused('POST', fw('/rules'), { type: 'in', action: 'ACCEPT', source: '+nope' })).toEqual([
      400,
      { source: "no such ipset 'nope'" },
    ]);
    expect(await refused('PUT', fw('/rules/0'), { delete: 'action' })).toEqual([
      400,
      { delete: "unable to delete required property 'action'" },
    ]);
    expect(await refused('GET', fw('/rules/9'))).toEqual([500, 'no rule at position 9']);

    const refs = await sim.ok('GET', fw('/refs'));
    expect(refs).toEqual(
      expect.arrayContaining([
        { type: 'ipset', name: 'web', ref: '+web', scope: 'guest', comment: 'front ends' },
        { type: 'alias', name: 'mgmt', ref: 'mgmt', scope: 'guest', comment: 'management' },
      ]),
    );
    expect(await sim.ok('GET', fw('/log'))).toEqual([{ n: 1, t: 'no content' }]);
    expect(await sim.ok('GET', fw())).toEqual(
      ['rules', 'aliases', 'ipset', 'refs', 'options'].map((name) => ({ name })),
    );

    // A clone takes the firewall config along (clone_vmfw_conf).
    expect(await sim.task('POST', `/nodes/pve1/qemu/${vmid}/clone`, { newid: String(vmid + 1) })).toBe('OK');
    expect((await sim.ok('GET', `/nodes/pve1/qemu/${vmid + 1}/firewall/rules`)).length).toBe(3);
    await sim.ok('DELETE', fw('/ipset/web/198.51.100.11'));
    await sim.ok('DELETE', fw('/ipset/web'), { force: '1' });
    expect(await sim.ok('GET', fw('/ipset'))).toEqual([]);
  });
});

import {
  RULES,
  baselineAfter,
  changePolicySchema,
  parseBaseline,
  planWritesNothing,
  type Baseline,
} from '../../../../src/domain/change';
import { configWith, only, planFor } from './fixtures';

/** What ferry applied last: memory 2048, net0 up with tag 20, scsi0 and net0 present. */
const BASELINE: Baseline = {
  version: 1,
  applied: { memory: '2048', 'net0.tag': '20', 'net0.link_down': null, scsi0: 'present', net0: 'present' },
  accepted: {},
};
const handMemory = { config: configWith({ memory: '4096' }) };

describe('who moved: NetBox, Proxmox by hand, or both (the baseline)', () => {
  it('without a baseline every difference counts as a NetBox edit', () => {
    expect(only(planFor({}, handMemory), 'memory')).toMatchObject({
      side: 'netbox',
      class: 'at-restart',
      from: '4096',
      to: '2048',
    });
  });

  it('NetBox moved, Proxmox did not: NetBox’s value is applied', () => {
    expect(only(planFor({ memoryMB: 3072 }, {}, { baseline: BASELINE }), 'memory')).toMatchObject({
      side: 'netbox',
      class: 'at-restart',
    });
  });

  it('a hand change in Proxmox is reported and nothing is written (the default: change.handDrift.default report)', () => {
    const plan = planFor({}, handMemory, { baseline: BASELINE });
    expect(only(plan, 'memory')).toMatchObject({
      side: 'proxmox',
      class: 'reported',
      rule: RULES.policy,
      from: '4096',
      to: '2048',
    });
    expect(only(plan, 'memory').why).toBe(
      'memory was changed in Proxmox by hand; NetBox did not move (policy change.handDrift.default: report)',
    );
    expect(only(plan, 'memory')).not.toHaveProperty('operation');
    expect(planWritesNothing(plan)).toBe(true);
  });

  it('handDrift netbox puts NetBox’s value back, classed like any other change', () => {
    const plan = planFor({}, handMemory, { baseline: BASELINE, policy: { handDrift: { default: 'netbox' } } });
    expect(only(plan, 'memory')).toMatchObject({
      side: 'proxmox',
      class: 'at-restart',
      operation: { op: 'set-memory', memoryMiB: 2048 },
    });
  });

  it('handDrift per field wins over the default', () => {
    const config = configWith({ memory: '4096', net0: 'virtio=BC:24:11:00:00:01,bridge=vmbr0,tag=20,link_down=1' });
    const plan = planFor(
      {},
      { config },
      { baseline: BASELINE, policy: { handDrift: { default: 'report', fields: { 'nic.link_down': 'netbox' } } } },
    );
    expect(plan.changes.map((c) => [c.id, c.class])).toEqual([
      ['memory', 'reported'],
      ['net0.link_down', 'live'],
    ]);
    expect(only(plan, 'net0.link_down').why).toContain('set_link');
  });

  it('handDrift proxmox keeps the hand change until NetBox’s value moves; the baseline remembers both sides', () => {
    const keep = { handDrift: { fields: { memory: 'proxmox' as const } } };
    const plan = planFor({}, handMemory, { baseline: BASELINE, policy: keep });
    expect(plan.changes).toEqual([]);
    expect(plan.accepted).toEqual([{ id: 'memory', kind: 'memory', netbox: '2048', proxmox: '4096' }]);
    const next = baselineAfter(plan, [], BASELINE);
    expect(next.accepted).toEqual({ memory: { netbox: '2048', proxmox: '4096' } });
    expect(next.applied).not.toHaveProperty('memory');
    // A rerun: still accepted, even under a policy that would now report it.
    expect(planFor({}, handMemory, { baseline: next }).changes).toEqual([]);
    // NetBox moves: its value is applied.
    expect(only(planFor({ memoryMB: 8192 }, handMemory, { baseline: next }), 'memory')).toMatchObject({
      side: 'netbox',
      to: '8192',
    });
    // Proxmox moves again: a hand change once more.
    const again = only(planFor({}, { config: configWith({ memory: '6144' }) }, { baseline: next }), 'memory');
    expect(again).toMatchObject({ side: 'proxmox', class: 'reported' });
    expect(again.why).toContain('again, after an accepted hand change');
  });

  it('both moved to different values: reported (change.conflict report), or NetBox wins (conflict netbox)', () => {
    const report = only(planFor({ memoryMB: 8192 }, handMemory, { baseline: BASELINE }), 'memory');
    expect(report).toMatchObject({ side: 'both', class: 'reported' });
    const netbox = only(
      planFor({ memoryMB: 8192 }, handMemory, { baseline: BASELINE, policy: { conflict: 'netbox' } }),
      'memory',
    );
    expect(netbox).toMatchObject({ side: 'both', class: 'at-restart', to: '8192' });
    // Both moved to the same value: nothing to do.
    expect(planFor({ memoryMB: 4096 }, handMemory, { baseline: BASELINE }).changes).toEqual([]);
  });

  it('a disk added in Proxmox by hand is a hand change once a baseline exists (it lists every disk ferry left)', () => {
    const config = configWith({ scsi2: 'local-lvm:vm-9001-disk-5,size=4G' });
    expect(only(planFor({}, { config }), 'scsi2')).toMatchObject({ side: 'netbox', class: 'detach' });
    expect(only(planFor({}, { config }, { baseline: BASELINE }), 'scsi2')).toMatchObject({
      side: 'proxmox',
      class: 'reported',
    });
    expect(
      only(
        planFor({}, { config }, { baseline: BASELINE, policy: { handDrift: { fields: { disk: 'netbox' } } } }),
        'scsi2',
      ).class,
    ).toBe('detach');
  });
});

describe('the policy and the stored baseline are checked, with what is wrong and where', () => {
  it('fills the defaults: report hand changes, report conflicts, no MAC change, keep a moved disk’s source, detach removed disks', () => {
    expect(changePolicySchema.parse({})).toEqual({
      handDrift: { default: 'report', fields: {} },
      conflict: 'report',
      allowMacChange: false,
      movedDiskSource: 'keep',
      removedDisk: 'detach',
    });
  });

  it('refuses unknown field kinds, unknown choices and deleting removed disks', () => {
    const result = changePolicySchema.safeParse({
      handDrift: { fields: { ram: 'netbox', memory: 'ignore' } },
      removedDisk: 'delete',
      extra: 1,
    });
    expect(result.success).toBe(false);
    const messages = result.error!.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    expect(messages).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^handDrift\.fields\.ram: not a field kind; one of vcpus, memory, disk, /),
        ': Unrecognized key: "extra"',
        'handDrift.fields.memory: one of report, netbox, proxmox',
        'removedDisk: detach (a removed disk is kept as unusedN; deleting it needs an approval)',
      ]),
    );
  });

  it('reads a stored baseline, none, or says what is wrong with it', () => {
    expect(parseBaseline(null)).toEqual({ ok: true, baseline: undefined });
    expect(parseBaseline(BASELINE)).toEqual({ ok: true, baseline: BASELINE });
    expect(parseBaseline({ version: 2, applied: { memory: 2048 } })).toEqual({
      ok: false,
      problem: expect.stringMatching(
        /^custom field ferry_applied is not a ferry baseline: version: .*; applied\.memory: /,
      ),
    });
  });
});

import { RULES, type Baseline } from '../../../../src/domain/change';
import type { RecordInterface } from '../../../../src/domain/provisioning';
import { MAC0, MAC1, RECORD, configWith, ids, only, planFor, provisionedRecord } from './fixtures';

const net0 = (edits: Partial<RecordInterface> = {}): RecordInterface => ({
  id: 100,
  name: 'net0',
  enabled: true,
  taggedVlans: [],
  mac: MAC0,
  fields: {},
  ...edits,
});

const interfaces = (...list: RecordInterface[]) => ({ interfaces: list });

describe('NIC fields a running VM takes at once, whatever hotplug says (PVE/QemuServer.pm vmconfig_update_net)', () => {
  it('a new bridge and VLAN tag re-plug the tap device and keep the MAC', () => {
    for (const hotplug of [undefined, '0']) {
      const plan = planFor(
        { fields: { vmid: 9001, network: 'vmbr1' }, ...interfaces(net0({ mode: 'access', untaggedVlan: 30 })) },
        { config: configWith({ hotplug }) },
      );
      expect(ids(plan)).toEqual(['net0.bridge', 'net0.tag']);
      expect(only(plan, 'net0.bridge')).toMatchObject({
        class: 'live',
        rule: RULES.updateNet,
        from: 'vmbr0',
        to: 'vmbr1',
      });
      expect(only(plan, 'net0.tag')).toMatchObject({ class: 'live', from: '20', to: '30' });
      expect(plan.steps.live?.setNics.net0).toEqual({
        model: 'virtio',
        macaddr: MAC0,
        options: { bridge: 'vmbr1', tag: '30' },
      });
    }
  });

  it('trunks and firewall re-plug the tap; rate is set on it; link_down is QMP set_link', () => {
    const plan = planFor(
      interfaces(
        net0({
          mode: 'tagged',
          untaggedVlan: 20,
          taggedVlans: [300, 100],
          enabled: false,
          fields: { rate: 25, firewall: true },
        }),
      ),
      { config: configWith({ hotplug: '0' }) },
    );
    expect(plan.changes.map((c) => [c.id, c.class, c.to])).toEqual([
      ['net0.trunks', 'live', '100;300'],
      ['net0.rate', 'live', '25'],
      ['net0.link_down', 'live', '1'],
      ['net0.firewall', 'live', '1'],
    ]);
    expect(plan.changes.every((c) => c.rule === RULES.updateNet)).toBe(true);
    expect(plan.steps.live?.setNics.net0?.options).toEqual({
      bridge: 'vmbr0',
      tag: '20',
      trunks: '100;300',
      rate: '25',
      link_down: '1',
      firewall: '1',
    });
  });

  it('MTU and queues re-plug the device: live with network hotplug, else at the restart', () => {
    const change = (hotplug: string | undefined) =>
      planFor(interfaces(net0({ mtu: 9000, fields: { queues: 4 } })), { config: configWith({ hotplug }) }).changes.map(
        (c) => [c.id, c.class],
      );
    expect(change(undefined)).toEqual([
      ['net0.mtu', 'live'],
      ['net0.queues', 'live'],
    ]);
    expect(change('disk,usb')).toEqual([
      ['net0.mtu', 'at-restart'],
      ['net0.queues', 'at-restart'],
    ]);
  });

  it('refuses an MTU below 576 (1 is the bridge’s) and MTU or queues on a NIC that is not virtio (print_netdevice_full)', () => {
    expect(only(planFor(interfaces(net0({ mtu: 500 }))), 'net0.mtu')).toMatchObject({
      class: 'refused',
      rule: RULES.netdevice,
    });
    expect(only(planFor(interfaces(net0({ mtu: 1 }))), 'net0.mtu').class).toBe('live');
    const e1000 = configWith({ net0: `e1000=${MAC0},bridge=vmbr0,tag=20` });
    expect(only(planFor(interfaces(net0({ mtu: 1500 })), { config: e1000 }), 'net0.mtu')).toMatchObject({
      class: 'refused',
    });
    expect(only(planFor(interfaces(net0({ fields: { queues: 2 } })), { config: e1000 }), 'net0.queues').why).toContain(
      'virtio NICs only',
    );
  });

  it('a NIC with its own bridge or VLAN change and an at-restart one is written once, for the restart (one pending value per key)', () => {
    const plan = planFor(interfaces(net0({ mode: 'access', untaggedVlan: 30, mtu: 9000 })), {
      config: configWith({ hotplug: '0' }),
    });
    expect(plan.changes.map((c) => [c.id, c.class])).toEqual([
      ['net0.tag', 'at-restart'],
      ['net0.mtu', 'at-restart'],
    ]);
    expect(only(plan, 'net0.tag').rule).toBe(RULES.updateVm);
    expect(plan.steps.live).toBeUndefined();
    expect(plan.steps.restart?.setNics.net0?.options).toMatchObject({ tag: '30', mtu: '9000' });
  });

  it('a stopped VM takes every NIC change at once (vmconfig_apply_pending)', () => {
    const plan = planFor(interfaces(net0({ mtu: 9000 })), { power: 'stopped', config: configWith({ hotplug: '0' }) });
    expect(only(plan, 'net0.mtu')).toMatchObject({ class: 'live', rule: RULES.applyPending });
  });
});

describe('NICs added and removed (vmconfig_update_net / vmconfig_hotplug_pending)', () => {
  it('an interface added in NetBox becomes a NIC: hot-plugged with network hotplug, else at the restart', () => {
    const extra: RecordInterface = {
      id: 101,
      name: 'net1',
      enabled: true,
      taggedVlans: [],
      mode: 'access',
      untaggedVlan: 40,
      fields: {},
    };
    const added = planFor(interfaces(net0(), extra));
    expect(only(added, 'net1')).toMatchObject({
      class: 'live',
      rule: RULES.updateNet,
      to: 'present',
      operation: { op: 'add-nic', nic: { slot: 'net1', model: 'virtio', bridge: 'vmbr0', tag: 40 } },
    });
    expect(added.steps.live?.addNics.net1).toEqual({ slot: 'net1', model: 'virtio', bridge: 'vmbr0', tag: 40 });
    expect(only(planFor(interfaces(net0(), extra), { config: configWith({ hotplug: '0' }) }), 'net1').class).toBe(
      'at-restart',
    );
    // A MAC NetBox already has for it is the one Proxmox gets.
    expect(only(planFor(interfaces(net0(), { ...extra, mac: MAC1 })), 'net1').operation).toMatchObject({
      nic: { macaddr: MAC1 },
    });
  });

  it('a NIC gone from NetBox is removed: hot-unplugged with network hotplug, else at the restart', () => {
    const config = configWith({ net1: `virtio=${MAC1},bridge=vmbr0` });
    expect(only(planFor({}, { config }), 'net1')).toMatchObject({
      class: 'live',
      rule: RULES.hotplugPending,
      from: 'present',
      operation: { op: 'remove-nic', slot: 'net1' },
    });
    const later = planFor({}, { config: { ...config, hotplug: 'disk' } });
    expect(only(later, 'net1')).toMatchObject({ class: 'at-restart', waitsForRestart: true });
    expect(later.steps.restart?.delete).toEqual(['net1']);
  });

  it('a sub-interface (with a parent) is the guest’s own, not a Proxmox NIC', () => {
    const vlan: RecordInterface = {
      id: 102,
      name: 'eth0.100',
      enabled: true,
      taggedVlans: [],
      parentId: 100,
      fields: {},
    };
    expect(planFor(interfaces(net0(), vlan)).changes).toEqual([]);
  });
});

describe('MAC addresses (ferry policy: a new MAC is a new NIC to the guest)', () => {
  const baseline: Baseline = { version: 1, applied: { 'net0.mac': MAC0 }, accepted: {} };
  const newMac = interfaces(net0({ mac: 'BC:24:11:00:00:99' }));

  it('without a record of the MAC ferry applied, a different MAC in NetBox is refused (ferry cannot tell who moved)', () => {
    const change = only(planFor(newMac), 'net0.mac');
    expect(change).toMatchObject({ class: 'refused', rule: RULES.policy, from: MAC0, to: 'BC:24:11:00:00:99' });
    expect(change.why).toContain('no record of the MAC');
  });

  it('NetBox’s MAC changed: refused unless change.allowMacChange; then a device re-plug (network hotplug) or the restart', () => {
    expect(only(planFor(newMac, {}, { baseline }), 'net0.mac').why).toContain('change.allowMacChange');
    const allowed = planFor(newMac, {}, { baseline, policy: { allowMacChange: true } });
    expect(only(allowed, 'net0.mac')).toMatchObject({ class: 'live', rule: RULES.updateNet, side: 'netbox' });
    expect(allowed.steps.live?.setNics.net0?.macaddr).toBe('BC:24:11:00:00:99');
    const noHotplug = planFor(
      newMac,
      { config: configWith({ hotplug: '0' }) },
      { baseline, policy: { allowMacChange: true } },
    );
    expect(only(noHotplug, 'net0.mac').class).toBe('at-restart');
  });

  it('a MAC changed by hand in Proxmox is never changed back, whatever the policy', () => {
    const config = configWith({ net0: 'virtio=BC:24:11:00:00:77,bridge=vmbr0,tag=20' });
    const plan = planFor(
      interfaces(net0()),
      { config },
      { baseline, policy: { allowMacChange: true, handDrift: { default: 'netbox' } } },
    );
    expect(only(plan, 'net0.mac')).toMatchObject({ class: 'refused', side: 'proxmox' });
  });

  it('NetBox without a MAC for the interface leaves Proxmox’s MAC alone', () => {
    expect(planFor(interfaces(net0({ mac: undefined }))).changes).toEqual([]);
    expect(planFor(provisionedRecord({ ...RECORD })).changes).toEqual([]);
  });
});

import { element, typed, type MoRef } from '../../../src/vsphere/envelope';
import { retrieveAll, retrieveProperties, traversalSpec } from '../../../src/vsphere/property-collector';
import { waitForTask } from '../../../src/vsphere/tasks';
import { asMoRef } from '../../../src/vsphere/read';
import { child, children } from '../../../src/vsphere/xml';
import type { VsphereClient } from '../../../src/vsphere';
import type { VmNic, VmRecord } from '../../../src/domain/inventory';
import { startTestVcsim, type TestVcsim } from '../../helpers/vcsim';

/**
 * A NIC bound to a distributed port names the port (and the switch), and need not name the portgroup
 * (DistributedVirtualSwitchPortConnection.portgroupKey is optional). vcsim stores a reconfigured
 * backing as given, so such a NIC can be made there; the switch answers FetchDVPorts with the port's portgroup.
 */
describe('vSphere NICs bound to a distributed port against vcsim', () => {
  jest.setTimeout(120_000);
  let sim: TestVcsim;
  let client: VsphereClient;

  beforeAll(async () => {
    sim = await startTestVcsim();
    client = sim.client();
  });

  afterAll(() => sim?.stop());

  /** The ports of a portgroup (DistributedVirtualPortgroup.portKeys). */
  async function portKeys(portgroupKey: string): Promise<string[]> {
    const [pg] = await retrieveProperties(client.session, {
      propSet: [{ type: 'DistributedVirtualPortgroup', pathSet: ['portKeys'] }],
      objectSet: [{ obj: { type: 'DistributedVirtualPortgroup', value: portgroupKey } }],
    });
    return pg?.props.get('portKeys')?.children.map((e) => e.text.trim()) ?? [];
  }

  async function switchOf(uuid: string): Promise<MoRef> {
    const { objects } = await retrieveAll(client.session, [
      {
        propSet: [{ type: 'DistributedVirtualSwitch', pathSet: ['uuid'] }],
        objectSet: [
          {
            obj: (await client.session.serviceContent()).rootFolder,
            selectSet: [
              traversalSpec('dc', 'Folder', 'childEntity', [
                traversalSpec('net', 'Datacenter', 'networkFolder', [traversalSpec('nf', 'Folder', 'childEntity')]),
              ]),
            ],
          },
        ],
      },
    ]);
    const found = objects.find((o) => o.props.get('uuid')?.text === uuid);
    if (!found) throw new Error(`no switch ${uuid}`);
    return found.obj;
  }

  async function addPortgroup(dvs: MoRef, name: string, numPorts: number): Promise<void> {
    const response = await client.session.call('AddDVPortgroup_Task', dvs, [
      element('spec', element('name', name), element('numPorts', numPorts), element('type', 'earlyBinding')),
    ]);
    await waitForTask(client.session, asMoRef(child(response, 'returnval')!, 'AddDVPortgroup_Task'), {
      step: 'test',
      method: 'AddDVPortgroup_Task',
      object: dvs.value,
    });
  }

  /** Rebinds a NIC to `port` on its switch, naming no portgroup (ReconfigVM_Task, device edit). */
  async function bindToPortOnly(vm: VmRecord, nic: VmNic, switchUuid: string, port: string): Promise<void> {
    const spec = element(
      'spec',
      element(
        'deviceChange',
        element('operation', 'edit'),
        typed(
          'device',
          `Virtual${nic.deviceType[0]!.toUpperCase()}${nic.deviceType.slice(1)}`,
          element('key', nic.key),
          typed(
            'backing',
            'VirtualEthernetCardDistributedVirtualPortBackingInfo',
            element('port', element('switchUuid', switchUuid), element('portKey', port)),
          ),
          element('addressType', 'manual'),
          element('macAddress', nic.macAddress),
        ),
      ),
    );
    const vmRef = { type: 'VirtualMachine', value: vm.moid };
    const response = await client.session.call('ReconfigVM_Task', vmRef, [spec]);
    await waitForTask(client.session, asMoRef(child(response, 'returnval')!, 'ReconfigVM_Task'), {
      step: 'test',
      method: 'ReconfigVM_Task',
      object: vm.moid,
    });
  }

  it('maps such a NIC to the portgroup of its port, and marks one on an unknown port untranslatable without failing discovery', async () => {
    const before = await client.discover({ scope: {} });
    const withDvNic = before.inventory.vms.filter((v) => v.nics.some((n) => n.backing.kind === 'dvportgroup'));
    const [first, second, third] = withDvNic;
    const nicOf = (vm: VmRecord) => vm.nics.find((n) => n.backing.kind === 'dvportgroup')!;
    const { switchUuid } = nicOf(first!).backing as { switchUuid?: string };
    const switchRef = await switchOf(switchUuid!);
    // vcsim numbers every portgroup's ports from 0 (vCenter keeps keys unique per switch): a portgroup
    // with more ports than any other has keys only it holds.
    await addPortgroup(switchRef, 'PG-PORTS40', 40);
    const pgKey = (await client.discover({ scope: {} })).inventory.portgroups.find((p) => p.name === 'PG-PORTS40')!.key;
    const keys = await portKeys(pgKey);
    expect(keys).toContain('39');

    await bindToPortOnly(first!, nicOf(first!), switchUuid!, '39');
    await bindToPortOnly(second!, nicOf(second!), switchUuid!, 'no-such-port');
    await bindToPortOnly(third!, nicOf(third!), switchUuid!, '0'); // in every portgroup: ambiguous

    // vcsim kept the backing as given: no portgroupKey.
    const [raw] = await retrieveProperties(client.session, {
      propSet: [{ type: 'VirtualMachine', pathSet: ['config.hardware.device'] }],
      objectSet: [{ obj: { type: 'VirtualMachine', value: first!.moid } }],
    });
    const port = children(raw!.props.get('config.hardware.device')!, 'VirtualDevice')
      .map((d) => child(child(d, 'backing') ?? d, 'port'))
      .find((p) => p && child(p, 'portKey')?.text === '39');
    expect(port && child(port, 'portgroupKey')).toBeUndefined();

    const after = await client.discover({ scope: {} });
    expect(after.skipped).toEqual([]);
    const vm = (moid: string) => after.inventory.vms.find((v) => v.moid === moid)!;
    expect(vm(first!.moid).nics.find((n) => n.key === nicOf(first!).key)!.backing).toEqual({
      kind: 'dvportgroup',
      portgroupKey: pgKey,
      switchUuid,
      portKey: '39',
    });
    for (const [other, port] of [
      [second!, 'no-such-port'],
      [third!, '0'],
    ] as const) {
      expect(vm(other.moid).nics.find((n) => n.key === nicOf(other).key)!.backing).toEqual({
        kind: 'other',
        backingType: `distributed port ${port} on switch ${switchUuid} whose portgroup vCenter did not name`,
      });
    }
    // A migration reads its VM alone (readVmWithNetworks): the same NICs as discovery's.
    for (const each of [first!, second!, third!])
      expect((await client.readVmWithNetworks(each.moid)).vm).toEqual(vm(each.moid));
  });
});

import {
  classifyVlan,
  devicesOf,
  mapVm,
  ObjectIndex,
  portgroupRecord,
  portKey,
  unnamedPorts,
  VM_PATHS,
  vmRecord,
} from '../../../src/vsphere/inventory-mapping';
import { readObjects } from '../../../src/vsphere/property-collector';
import { parseXml } from '../../../src/vsphere/xml';

const X = 'xmlns:XMLSchema-instance="http://www.w3.org/2001/XMLSchema-instance"';
const ROOT = { type: 'Folder', value: 'group-d1' };

/** ObjectContents as vcsim writes them (prefix `XMLSchema-instance`). */
function objects(xml: string) {
  return readObjects(parseXml(`<returnval ${X}>${xml}</returnval>`));
}

function prop(name: string, val: string, type?: string, extra = '') {
  return `<propSet><name>${name}</name><val ${type ? `XMLSchema-instance:type="${type}"` : ''} ${extra}>${val}</val></propSet>`;
}

function portConfig(vlan: string) {
  return parseXml(`<val ${X} XMLSchema-instance:type="VMwareDVSPortSetting">${vlan}</val>`);
}

describe('VLAN classification', () => {
  it('reads access, trunk (one range and several), pvlan and untagged specs', () => {
    expect(
      classifyVlan(
        portConfig(
          '<vlan XMLSchema-instance:type="VmwareDistributedVirtualSwitchVlanIdSpec"><inherited>false</inherited><vlanId>100</vlanId></vlan>',
        ),
        'pg',
      ),
    ).toEqual({ kind: 'access', vlanId: 100 });
    expect(
      classifyVlan(
        portConfig(
          '<vlan XMLSchema-instance:type="VmwareDistributedVirtualSwitchVlanIdSpec"><vlanId>0</vlanId></vlan>',
        ),
        'pg',
      ),
    ).toEqual({ kind: 'none' });
    expect(
      classifyVlan(
        portConfig(
          '<vlan XMLSchema-instance:type="VmwareDistributedVirtualSwitchTrunkVlanSpec"><vlanId><start>0</start><end>4094</end></vlanId></vlan>',
        ),
        'pg',
      ),
    ).toEqual({ kind: 'trunk', ranges: [{ start: 0, end: 4094 }] });
    expect(
      classifyVlan(
        portConfig(
          '<vlan XMLSchema-instance:type="VmwareDistributedVirtualSwitchTrunkVlanSpec"><vlanId><start>100</start><end>200</end></vlanId><vlanId><start>300</start><end>310</end></vlanId></vlan>',
        ),
        'pg',
      ),
    ).toEqual({
      kind: 'trunk',
      ranges: [
        { start: 100, end: 200 },
        { start: 300, end: 310 },
      ],
    });
    expect(
      classifyVlan(
        portConfig(
          '<vlan XMLSchema-instance:type="VmwareDistributedVirtualSwitchPvlanSpec"><pvlanId>501</pvlanId></vlan>',
        ),
        'pg',
      ),
    ).toEqual({ kind: 'pvlan', pvlanId: 501 });
    expect(classifyVlan(portConfig(''), 'pg')).toEqual({ kind: 'none' });
    expect(classifyVlan(undefined, 'pg')).toEqual({ kind: 'none' });
  });

  it('refuses what it cannot classify, saying where', () => {
    expect(() =>
      classifyVlan(
        portConfig('<vlan XMLSchema-instance:type="SomeFutureVlanSpec"/>'),
        'DistributedVirtualPortgroup dvportgroup-9',
      ),
    ).toThrow(
      'unexpected vSphere answer at DistributedVirtualPortgroup dvportgroup-9.vlan: unknown VLAN specification type SomeFutureVlanSpec',
    );
    expect(() =>
      classifyVlan(
        portConfig(
          '<vlan XMLSchema-instance:type="VmwareDistributedVirtualSwitchVlanIdSpec"><vlanId>5000</vlanId></vlan>',
        ),
        'pg',
      ),
    ).toThrow(/outside 0–4094/);
    expect(() =>
      classifyVlan(
        portConfig(
          '<vlan XMLSchema-instance:type="VmwareDistributedVirtualSwitchTrunkVlanSpec"><vlanId><start>9</start><end>3</end></vlanId></vlan>',
        ),
        'pg',
      ),
    ).toThrow(/9-3 is not valid/);
  });

  it('marks uplink portgroups from the portgroup or from its switch', () => {
    const objs = objects(
      '<objects><obj type="DistributedVirtualSwitch">dvs-1</obj>' +
        prop('name', 'DSwitch') +
        prop('uuid', '50 1f') +
        prop(
          'config.uplinkPortgroup',
          '<ManagedObjectReference type="DistributedVirtualPortgroup">dvportgroup-2</ManagedObjectReference>',
          'ArrayOfManagedObjectReference',
        ) +
        '</objects>' +
        '<objects><obj type="DistributedVirtualPortgroup">dvportgroup-2</obj>' +
        prop('name', 'DSwitch-DVUplinks') +
        prop('key', 'dvportgroup-2') +
        prop('config.distributedVirtualSwitch', 'dvs-1', 'ManagedObjectReference', 'type="DistributedVirtualSwitch"') +
        '</objects>' +
        '<objects><obj type="DistributedVirtualPortgroup">dvportgroup-3</obj>' +
        prop('name', 'PG-A') +
        prop(
          'config.distributedVirtualSwitch',
          'dvs-1',
          'ManagedObjectReference',
          'type="VmwareDistributedVirtualSwitch"',
        ) +
        prop('config.uplink', 'false', 'xsd:boolean') +
        '</objects>',
    );
    const index = new ObjectIndex(objs);
    expect(portgroupRecord(objs[1]!, index)).toEqual({
      key: 'dvportgroup-2',
      name: 'DSwitch-DVUplinks',
      switchName: 'DSwitch',
      switchUuid: '50 1f',
      vlan: { kind: 'none' },
      uplink: true,
    });
    expect(portgroupRecord(objs[2]!, index)).toMatchObject({
      key: 'dvportgroup-3',
      uplink: false,
      switchName: 'DSwitch',
    });
  });
});

const DEVICES = `<val ${X} XMLSchema-instance:type="ArrayOfVirtualDevice">
  <VirtualDevice XMLSchema-instance:type="VirtualLsiLogicController"><key>1000</key><busNumber>1</busNumber><device>2001</device></VirtualDevice>
  <VirtualDevice XMLSchema-instance:type="ParaVirtualSCSIController"><key>1001</key><busNumber>0</busNumber></VirtualDevice>
  <VirtualDevice XMLSchema-instance:type="VirtualDisk"><key>2001</key><deviceInfo><label>Hard disk 2</label></deviceInfo>
    <backing XMLSchema-instance:type="VirtualDiskRawDiskMappingVer1BackingInfo"><fileName>[ds1] db/db_1.vmdk</fileName><datastore type="Datastore">datastore-5</datastore>
      <deviceName>/vmfs/devices/disks/naa.6</deviceName><compatibilityMode>physicalMode</compatibilityMode><diskMode>independent_persistent</diskMode></backing>
    <controllerKey>1000</controllerKey><unitNumber>0</unitNumber><capacityInKB>1024</capacityInKB></VirtualDevice>
  <VirtualDevice XMLSchema-instance:type="VirtualDisk"><key>2000</key><deviceInfo><label>Hard disk 1</label></deviceInfo>
    <backing XMLSchema-instance:type="VirtualDiskFlatVer2BackingInfo"><fileName>[nfs-migration] db/db.vmdk</fileName><datastore type="Datastore">datastore-9</datastore>
      <diskMode>persistent</diskMode><thinProvisioned>true</thinProvisioned></backing>
    <controllerKey>1001</controllerKey><unitNumber>3</unitNumber><capacityInBytes>42949672960</capacityInBytes></VirtualDevice>
  <VirtualDevice XMLSchema-instance:type="VirtualVmxnet3"><key>4000</key><deviceInfo><label>Network adapter 1</label></deviceInfo>
    <backing XMLSchema-instance:type="VirtualEthernetCardDistributedVirtualPortBackingInfo"><port><switchUuid>50 1f</switchUuid><portgroupKey>dvportgroup-7</portgroupKey><portKey>12</portKey></port></backing>
    <macAddress>00:50:56:AA:BB:CC</macAddress></VirtualDevice>
  <VirtualDevice XMLSchema-instance:type="VirtualE1000"><key>4001</key>
    <backing XMLSchema-instance:type="VirtualEthernetCardNetworkBackingInfo"><deviceName>VM Network</deviceName><network type="Network">network-3</network></backing>
    <macAddress>00:50:56:00:00:01</macAddress></VirtualDevice>
  <VirtualDevice XMLSchema-instance:type="VirtualVmxnet3"><key>4002</key>
    <backing XMLSchema-instance:type="VirtualEthernetCardOpaqueNetworkBackingInfo"><opaqueNetworkId>ls-1</opaqueNetworkId><opaqueNetworkType>nsx.LogicalSwitch</opaqueNetworkType></backing>
    <macAddress>00:50:56:00:00:02</macAddress></VirtualDevice>
  <VirtualDevice XMLSchema-instance:type="VirtualSriovEthernetCard"><key>4003</key>
    <backing XMLSchema-instance:type="VirtualSriovEthernetCardSriovBackingInfo"/><macAddress>00:50:56:00:00:03</macAddress></VirtualDevice>
  <VirtualDevice XMLSchema-instance:type="VirtualMachineVideoCard"><key>500</key></VirtualDevice>
</val>`;

describe('devices', () => {
  const index = new ObjectIndex(
    objects(`<objects><obj type="Datastore">datastore-9</obj>${prop('name', 'nfs-migration')}</objects>`),
  );

  it('maps NICs by backing and disks by controller, RDM and disk mode', () => {
    const { nics, disks } = devicesOf(parseXml(DEVICES), 'vm-1 config.hardware.device', index);
    expect(nics).toEqual([
      {
        key: 4000,
        label: 'Network adapter 1',
        deviceType: 'vmxnet3',
        macAddress: '00:50:56:aa:bb:cc',
        backing: { kind: 'dvportgroup', portgroupKey: 'dvportgroup-7', switchUuid: '50 1f', portKey: '12' },
      },
      {
        key: 4001,
        label: 'NIC 4001',
        deviceType: 'e1000',
        macAddress: '00:50:56:00:00:01',
        backing: { kind: 'network', networkName: 'VM Network', networkMoid: 'network-3' },
      },
      {
        key: 4002,
        label: 'NIC 4002',
        deviceType: 'vmxnet3',
        macAddress: '00:50:56:00:00:02',
        backing: { kind: 'opaque', opaqueNetworkId: 'ls-1', opaqueNetworkType: 'nsx.LogicalSwitch' },
      },
      {
        key: 4003,
        label: 'NIC 4003',
        deviceType: 'sriovethernetcard',
        macAddress: '00:50:56:00:00:03',
        backing: { kind: 'other', backingType: 'VirtualSriovEthernetCardSriovBackingInfo' },
      },
    ]);
    expect(disks).toEqual([
      {
        key: 2001,
        label: 'Hard disk 2',
        controllerType: 'lsilogic',
        controllerKey: 1000,
        controllerBusNumber: 1,
        unitNumber: 0,
        capacityBytes: 1024 * 1024,
        fileName: '[ds1] db/db_1.vmdk',
        datastore: { moid: 'datastore-5', name: 'ds1' },
        thinProvisioned: undefined,
        diskMode: 'independent_persistent',
        rdm: { compatibilityMode: 'physicalMode', deviceName: '/vmfs/devices/disks/naa.6' },
      },
      {
        key: 2000,
        label: 'Hard disk 1',
        controllerType: 'pvscsi',
        controllerKey: 1001,
        controllerBusNumber: 0,
        unitNumber: 3,
        capacityBytes: 42949672960,
        fileName: '[nfs-migration] db/db.vmdk',
        datastore: { moid: 'datastore-9', name: 'nfs-migration' },
        thinProvisioned: true,
        diskMode: 'persistent',
        rdm: undefined,
      },
    ]);
  });

  // A DistributedVirtualSwitchPortConnection may name only the port (portgroupKey is optional).
  const PORT_ONLY = `<val ${X} XMLSchema-instance:type="ArrayOfVirtualDevice">
  <VirtualDevice XMLSchema-instance:type="VirtualVmxnet3"><key>4000</key>
    <backing XMLSchema-instance:type="VirtualEthernetCardDistributedVirtualPortBackingInfo"><port><switchUuid>50 1f</switchUuid><portKey>31</portKey></port></backing>
    <macAddress>00:50:56:00:00:31</macAddress></VirtualDevice>
  <VirtualDevice XMLSchema-instance:type="VirtualVmxnet3"><key>4001</key>
    <backing XMLSchema-instance:type="VirtualEthernetCardDistributedVirtualPortBackingInfo"><port><switchUuid>50 1f</switchUuid><portKey>32</portKey></port></backing>
    <macAddress>00:50:56:00:00:32</macAddress></VirtualDevice>
</val>`;

  it('takes the portgroup of a NIC bound to a port alone from the switch, else marks it untranslatable', () => {
    const ports = new Map([[portKey('50 1f', '31'), 'dvportgroup-7']]);
    expect(devicesOf(parseXml(PORT_ONLY), 'vm-1', index, ports).nics.map((n) => n.backing)).toEqual([
      { kind: 'dvportgroup', portgroupKey: 'dvportgroup-7', switchUuid: '50 1f', portKey: '31' },
      { kind: 'other', backingType: 'distributed port 32 on switch 50 1f whose portgroup vCenter did not name' },
    ]);
    const vms = objects(
      `<objects><obj type="VirtualMachine">vm-1</obj>${prop('config.hardware.device', PORT_ONLY.replace(/^<val[^>]*>|<\/val>$/g, ''), 'ArrayOfVirtualDevice')}</objects>`,
    );
    expect(unnamedPorts(vms)).toEqual(new Map([['50 1f', new Set(['31', '32'])]]));
    // Ports whose connection names the portgroup need no look-up.
    expect(
      unnamedPorts(
        objects(
          `<objects><obj type="VirtualMachine">vm-2</obj>${prop('config.hardware.device', DEVICES.replace(/^<val[^>]*>|<\/val>$/g, ''), 'ArrayOfVirtualDevice')}</objects>`,
        ),
      ),
    ).toEqual(new Map());
  });

  it('handles a one-device list as a list', () => {
    const one = parseXml(
      `<val ${X}><VirtualDevice XMLSchema-instance:type="VirtualE1000e"><key>7</key><macAddress>aa</macAddress></VirtualDevice></val>`,
    );
    expect(devicesOf(one, 'x', index).nics.map((n) => n.deviceType)).toEqual(['e1000e']);
  });

  it('says which disk points at a controller the VM does not have', () => {
    const bad = parseXml(
      `<val ${X}><VirtualDevice XMLSchema-instance:type="VirtualDisk"><key>2000</key><controllerKey>99</controllerKey></VirtualDevice></val>`,
    );
    expect(() => devicesOf(bad, 'VirtualMachine vm-3 config.hardware.device', index)).toThrow(
      'unexpected vSphere answer at VirtualMachine vm-3 config.hardware.device[0]: disk 2000 is on controller 99, which the VM does not have',
    );
  });
});

describe('VM records', () => {
  const vmXml = (props: string) => `<objects><obj type="VirtualMachine">vm-42</obj>${props}</objects>`;
  const required =
    prop('name', 'web01') +
    prop('config.guestId', 'ubuntu64Guest') +
    prop('config.hardware.numCPU', '4', 'xsd:int') +
    prop('config.hardware.memoryMB', '8192', 'xsd:int') +
    prop('config.hardware.device', '', 'ArrayOfVirtualDevice') +
    prop('runtime.powerState', 'poweredOn', 'VirtualMachinePowerState');

  it('fills defaults vCenter leaves unset, and resolves host, cluster and folder path', () => {
    const objs = objects(
      vmXml(
        required +
          prop('runtime.host', 'host-1', 'ManagedObjectReference', 'type="HostSystem"') +
          prop('parent', 'group-v5', 'ManagedObjectReference', 'type="Folder"') +
          prop(
            'rootSnapshot',
            '<ManagedObjectReference type="VirtualMachineSnapshot">snapshot-1</ManagedObjectReference>',
            'ArrayOfManagedObjectReference',
          ) +
          prop(
            'datastore',
            '<ManagedObjectReference type="Datastore">datastore-9</ManagedObjectReference><ManagedObjectReference type="Datastore">datastore-404</ManagedObjectReference>',
            'ArrayOfManagedObjectReference',
          ) +
          '<propSet><name>config.instanceUuid</name></propSet>',
      ) +
        `<objects><obj type="Datastore">datastore-9</obj>${prop('name', 'nfs-migration')}</objects>` +
        `<objects><obj type="HostSystem">host-1</obj>${prop('name', 'esx1')}${prop('parent', 'domain-c7', 'ManagedObjectReference', 'type="ClusterComputeResource"')}</objects>` +
        `<objects><obj type="ClusterComputeResource">domain-c7</obj>${prop('name', 'Prod')}</objects>` +
        `<objects><obj type="Folder">group-v5</obj>${prop('name', 'apps')}${prop('parent', 'group-v3', '', 'type="Folder"')}</objects>` +
        `<objects><obj type="Folder">group-v3</obj>${prop('name', 'vm')}${prop('parent', 'datacenter-2', '', 'type="Datacenter"')}</objects>` +
        `<objects><obj type="Datacenter">datacenter-2</obj>${prop('name', 'DC A')}${prop('parent', 'group-d1', '', 'type="Folder"')}</objects>`,
    );
    const mapped = vmRecord(objs[0]!, new ObjectIndex(objs), ROOT);
    expect(mapped).toEqual({
      ok: true,
      vm: {
        moid: 'vm-42',
        name: 'web01',
        instanceUuid: undefined,
        guestId: 'ubuntu64Guest',
        firmware: 'bios',
        template: false,
        numCpu: 4,
        numCoresPerSocket: 1,
        memoryMb: 8192,
        powerState: 'poweredOn',
        host: { moid: 'host-1', name: 'esx1' },
        cluster: { moid: 'domain-c7', name: 'Prod' },
        folder: '/DC A/vm/apps',
        hasSnapshot: true,
        nics: [],
        disks: [],
        // The VM's datastores by name; one not in the retrieval keeps its moid.
        datastores: ['nfs-migration', 'datastore-404'],
      },
    });
  });

  it('skips a VM vCenter cannot describe, with the reason', () => {
    const objs = objects(
      vmXml(
        prop('name', 'ghost') +
          '<missingSet><path>config.hardware.device</path><fault><fault XMLSchema-instance:type="NoPermission"/></fault></missingSet>',
      ),
    );
    const mapped = vmRecord(objs[0]!, new ObjectIndex(objs), ROOT);
    expect(mapped).toMatchObject({ ok: false, moid: 'vm-42', name: 'ghost' });
    expect(!mapped.ok && mapped.reason).toMatch(
      /no config.guestId, .*config.hardware.device.*\(config.hardware.device: NoPermission\)/,
    );
  });

  it('refuses values outside the schema, naming the VM and property', () => {
    const objs = objects(vmXml(required.replace('>4<', '>four<')));
    expect(() => vmRecord(objs[0]!, new ObjectIndex(objs), ROOT)).toThrow(
      'unexpected vSphere answer at VirtualMachine vm-42 ("web01") config.hardware.numCPU: expected a whole number, got "four"',
    );
    const fw = objects(vmXml(required + prop('config.firmware', 'coreboot')));
    expect(() => vmRecord(fw[0]!, new ObjectIndex(fw), ROOT)).toThrow(/config.firmware: unknown firmware "coreboot"/);
  });

  it('in discovery, skips such a VM with the reason instead of failing', () => {
    const fw = objects(vmXml(required + prop('config.firmware', 'coreboot')));
    expect(mapVm(fw[0]!, new ObjectIndex(fw), ROOT)).toEqual({
      ok: false,
      moid: 'vm-42',
      name: 'web01',
      reason:
        'unexpected vSphere answer at VirtualMachine vm-42 ("web01") config.firmware: unknown firmware "coreboot"',
    });
    expect(mapVm(objects(vmXml(required))[0]!, new ObjectIndex([]), ROOT)).toMatchObject({
      ok: true,
      vm: { name: 'web01' },
    });
  });
});

describe('guest addresses', () => {
  const TWO_NICS = `<VirtualDevice XMLSchema-instance:type="VirtualVmxnet3"><key>4000</key>
      <backing XMLSchema-instance:type="VirtualEthernetCardNetworkBackingInfo"><deviceName>VM Network</deviceName></backing><macAddress>00:50:56:01:00:02</macAddress></VirtualDevice>
    <VirtualDevice XMLSchema-instance:type="VirtualVmxnet3"><key>4001</key>
      <backing XMLSchema-instance:type="VirtualEthernetCardNetworkBackingInfo"><deviceName>VM Network</deviceName></backing><macAddress>00:50:56:01:00:0a</macAddress></VirtualDevice>`;
  const ONE_NIC = TWO_NICS.slice(0, TWO_NICS.indexOf('<VirtualDevice', 10));
  const vm = (devices: string, props = '') =>
    objects(
      `<objects><obj type="VirtualMachine">vm-7</obj>` +
        prop('name', 'app02') +
        prop('config.guestId', 'debian12_64Guest') +
        prop('config.hardware.numCPU', '2', 'xsd:int') +
        prop('config.hardware.memoryMB', '2048', 'xsd:int') +
        prop('config.hardware.device', devices, 'ArrayOfVirtualDevice') +
        prop('runtime.powerState', 'poweredOn', 'VirtualMachinePowerState') +
        props +
        '</objects>',
    );
  const record = (devices: string, props = '') => {
    const objs = vm(devices, props);
    const mapped = vmRecord(objs[0]!, new ObjectIndex(objs), ROOT);
    if (!mapped.ok) throw new Error(mapped.reason);
    return mapped.vm;
  };
  // As vCenter reports VMware Tools' view: one GuestNicInfo per guest interface, ipConfig with prefix lengths.
  const guestNet = (...nics: string[]) => prop('guest.net', nics.join(''), 'ArrayOfGuestNicInfo');
  const nicInfo = (mac: string, deviceKey: number, ips: string[], config: Array<[string, number]> = []) =>
    `<GuestNicInfo><network>VM Network</network>${ips.map((ip) => `<ipAddress>${ip}</ipAddress>`).join('')}<macAddress>${mac}</macAddress>` +
    `<connected>true</connected><deviceConfigId>${deviceKey}</deviceConfigId>` +
    (config.length
      ? `<ipConfig>${config.map(([ip, p]) => `<ipAddress><ipAddress>${ip}</ipAddress><prefixLength>${p}</prefixLength><state>preferred</state></ipAddress>`).join('')}</ipConfig>`
      : '') +
    '</GuestNicInfo>';
  const option = (n: number, value: string) =>
    `<propSet><name>config.extraConfig["guestinfo.ferry.ipaddress.${n}"]</name><val XMLSchema-instance:type="OptionValue"><key>guestinfo.ferry.ipaddress.${n}</key>` +
    `<value XMLSchema-instance:type="xsd:string">${value}</value></val></propSet>`;

  it("reads VMware Tools' guest.net per NIC, with prefix lengths, leaving out link-local addresses and interfaces that are no VM NIC", () => {
    const vmRec = record(
      TWO_NICS,
      guestNet(
        nicInfo(
          '00:50:56:01:00:02',
          4000,
          ['198.51.100.22', 'fe80::250:56ff:fe01:2'],
          [
            ['198.51.100.22', 24],
            ['fe80::250:56ff:fe01:2', 64],
            ['2001:db8::22', 64],
          ],
        ),
        // A bridge inside the guest: no device, a MAC of its own.
        nicInfo('02:42:ac:11:00:01', -1, ['172.17.0.1'], [['172.17.0.1', 16]]),
        // Matched by MAC when vCenter gives no device key; upper case as some guests report it.
        '<GuestNicInfo><ipAddress>203.0.113.22</ipAddress><ipAddress>169.254.10.1</ipAddress><macAddress>00:50:56:01:00:0A</macAddress><connected>true</connected></GuestNicInfo>',
      ) +
        prop('guest.ipAddress', '198.51.100.22') +
        prop('guest.hostName', 'mig-app02') +
        option(0, '192.0.2.99'),
    );
    expect(vmRec.guestAddresses).toEqual([
      { mac: '00:50:56:01:00:02', addresses: ['198.51.100.22/24', '2001:db8::22/64'], source: 'tools' },
      { mac: '00:50:56:01:00:0a', addresses: ['203.0.113.22'], source: 'tools' },
    ]);
    expect(vmRec.guestHostName).toBe('mig-app02');
  });

  it("takes a prefix length of 0 (vcsim's for customized addresses) as unknown, and guest.ipAddress for a one-NIC VM whose guest.net names none", () => {
    expect(
      record(ONE_NIC, guestNet(nicInfo('00:50:56:01:00:02', 4000, ['198.51.100.21'], [['198.51.100.21', 0]])))
        .guestAddresses,
    ).toEqual([{ mac: '00:50:56:01:00:02', addresses: ['198.51.100.21'], source: 'tools' }]);
    expect(
      record(ONE_NIC, guestNet(nicInfo('00:50:56:01:00:02', 4000, [])) + prop('guest.ipAddress', '198.51.100.21'))
        .guestAddresses,
    ).toEqual([{ mac: '00:50:56:01:00:02', addresses: ['198.51.100.21'], source: 'tools' }]);
    // With two NICs, Tools' primary address belongs to no NIC in particular.
    expect(record(TWO_NICS, prop('guest.ipAddress', '198.51.100.21')).guestAddresses).toBeUndefined();
  });

  it('falls back to the guestinfo.ferry.ipaddress.<n> options when Tools reports no address, ignoring what is not an address', () => {
    const vmRec = record(
      TWO_NICS,
      guestNet(nicInfo('00:50:56:01:00:02', 4000, []), nicInfo('00:50:56:01:00:0a', 4001, [])) +
        option(0, '198.51.100.22/24, 2001:db8::22/64 fe80::1') +
        option(1, 'not-an-address 203.0.113.22/33 203.0.113.23') +
        option(2, '192.0.2.1'),
    );
    expect(vmRec.guestAddresses).toEqual([
      { mac: '00:50:56:01:00:02', addresses: ['198.51.100.22/24', '2001:db8::22/64'], source: 'extraConfig' },
      { mac: '00:50:56:01:00:0a', addresses: ['203.0.113.23'], source: 'extraConfig' },
    ]);
    expect(vmRec.guestHostName).toBeUndefined();
  });

  it('leaves the record without addresses when neither source has one', () => {
    const vmRec = record(TWO_NICS, guestNet(nicInfo('00:50:56:01:00:02', 4000, ['fe80::1'])) + option(0, ' '));
    expect(vmRec).not.toHaveProperty('guestAddresses');
    expect(vmRec).not.toHaveProperty('guestHostName');
  });

  it('reads the options by key, not the whole extraConfig', () => {
    expect(VM_PATHS).toEqual(
      expect.arrayContaining([
        'guest.net',
        'guest.ipAddress',
        'guest.hostName',
        'config.extraConfig["guestinfo.ferry.ipaddress.0"]',
        'config.extraConfig["guestinfo.ferry.ipaddress.9"]',
      ]),
    );
    expect(VM_PATHS).not.toContain('config.extraConfig');
  });
});

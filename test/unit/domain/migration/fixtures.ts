import type { PortgroupRecord, VmDisk, VmNic, VmRecord } from '../../../../src/domain/inventory';
import type { MigrationRules } from '../../../../src/domain/migration';

export function nic(key: number, overrides: Partial<VmNic> = {}): VmNic {
  return {
    key,
    label: `Network adapter ${key - 3999}`,
    deviceType: 'vmxnet3',
    macAddress: `00:50:56:aa:bb:${(key % 256).toString(16).padStart(2, '0')}`,
    backing: { kind: 'dvportgroup', portgroupKey: 'dvportgroup-100' },
    ...overrides,
  };
}

export function disk(key: number, overrides: Partial<VmDisk> = {}): VmDisk {
  return {
    key,
    label: `Hard disk ${key - 1999}`,
    controllerType: 'pvscsi',
    controllerKey: 1000,
    controllerBusNumber: 0,
    unitNumber: key - 2000,
    capacityBytes: 10 * 2 ** 30,
    fileName: `[nfs-migration] web01/web01${key === 2000 ? '' : `_${key - 2000}`}.vmdk`,
    datastore: { moid: 'datastore-1', name: 'nfs-migration' },
    thinProvisioned: true,
    diskMode: 'persistent',
    ...overrides,
  };
}

export function vm(overrides: Partial<VmRecord> = {}): VmRecord {
  return {
    moid: 'vm-42',
    name: 'web01',
    guestId: 'ubuntu64Guest',
    firmware: 'efi',
    template: false,
    numCpu: 4,
    numCoresPerSocket: 2,
    memoryMb: 8192,
    powerState: 'poweredOn',
    hasSnapshot: false,
    nics: [nic(4000)],
    disks: [disk(2000)],
    ...overrides,
  };
}

export function portgroup(key: string, name: string, vlan: PortgroupRecord['vlan'], uplink = false): PortgroupRecord {
  return { key, name, switchName: 'DSwitch', vlan, uplink };
}

export const PORTGROUPS: PortgroupRecord[] = [
  portgroup('dvportgroup-100', 'PG-VLAN100', { kind: 'access', vlanId: 100 }),
  portgroup('dvportgroup-101', 'PG-VLAN100-b', { kind: 'access', vlanId: 100 }),
  portgroup('dvportgroup-200', 'PG-VLAN200', { kind: 'access', vlanId: 200 }),
  portgroup('dvportgroup-300', 'PG-TRUNK', {
    kind: 'trunk',
    ranges: [
      { start: 100, end: 200 },
      { start: 300, end: 300 },
    ],
  }),
  portgroup('dvportgroup-400', 'PG-PVLAN', { kind: 'pvlan', pvlanId: 501 }),
  portgroup('dvportgroup-500', 'PG-UNTAGGED', { kind: 'access', vlanId: 0 }),
  portgroup('dvportgroup-600', 'DSwitch-uplinks', { kind: 'trunk', ranges: [{ start: 0, end: 4094 }] }, true),
];

/** Migration rules for the tests; `withTrunkOverride` maps PG-TRUNK to an existing VNet `trunk1`. */
export function rules(options: { withTrunkOverride?: boolean } = {}): MigrationRules {
  return {
    vmidBase: 20000,
    network: {
      zone: 'ferry',
      bridge: 'vmbr0',
      vnetPrefix: 'v',
      overrides: options.withTrunkOverride ? [{ network: 'PG-TRUNK', vnet: 'trunk1' }] : [],
    },
    nicModel: 'virtio',
    diskBus: 'scsi',
    efiStorage: 'local-lvm',
  };
}

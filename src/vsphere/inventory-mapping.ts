import { isIP } from 'node:net';
import type {
  DatastoreRecord,
  GuestNicAddresses,
  ManagedRef,
  NicBacking,
  PortgroupRecord,
  PowerState,
  VmDisk,
  VmNic,
  VmRecord,
  Vlan,
} from '../domain/inventory';
import type { MoRef } from './envelope';
import { VsphereResponseError } from './faults';
import type { ObjectContent } from './property-collector';
import { cdromsAndTpmOf } from './devices-cdrom-tpm';
import { asBool, asInt, asMoRef, badAnswer, Fields } from './read';
import { child, children, type XmlElement } from './xml';

/** The configuration options where a VM's guest addresses can be kept: `guestinfo.ferry.ipaddress.<n>` for its n-th NIC. */
export const GUEST_ADDRESS_OPTION = 'guestinfo.ferry.ipaddress';

/** A vSphere VM has at most 10 NICs: options 0 … 9 are read. */
const MAX_NICS = 10;

/**
 * The property path of one configuration option: PropertyCollector indexes `config.extraConfig` by key,
 * so only these options travel, not the VM's whole extraConfig (verified on vcsim; an unset key is
 * left out of the answer).
 */
export function extraConfigPath(key: string): string {
  return `config.extraConfig["${key}"]`;
}

const GUEST_ADDRESS_PATHS = Array.from({ length: MAX_NICS }, (_, n) => extraConfigPath(`${GUEST_ADDRESS_OPTION}.${n}`));

/** Properties discovery reads, by managed object type (base types: vCenter's subtypes match them). */
export const VM_PATHS = [
  'name',
  'parent',
  'config.instanceUuid',
  'config.guestId',
  'config.firmware',
  'config.template',
  'config.hardware.numCPU',
  'config.hardware.numCoresPerSocket',
  'config.hardware.memoryMB',
  'config.hardware.device',
  'runtime.powerState',
  'runtime.host',
  'rootSnapshot',
  'datastore',
  'guest.net',
  'guest.ipAddress',
  'guest.hostName',
  ...GUEST_ADDRESS_PATHS,
] as const;

export const INFRA_PATHS: Record<string, readonly string[]> = {
  DistributedVirtualPortgroup: [
    'name',
    'key',
    'config.distributedVirtualSwitch',
    'config.defaultPortConfig',
    'config.uplink',
  ],
  DistributedVirtualSwitch: ['name', 'uuid', 'config.uplinkPortgroup'],
  Datastore: ['name', 'summary.type', 'summary.url', 'summary.capacity', 'summary.freeSpace'],
  HostSystem: ['name', 'parent'],
  ComputeResource: ['name'],
  Folder: ['name', 'parent'],
  Datacenter: ['name', 'parent'],
};

/** Properties a VM must have for a record; without them vCenter is saying the VM is inaccessible. */
const VM_REQUIRED = [
  'name',
  'config.guestId',
  'config.hardware.numCPU',
  'config.hardware.memoryMB',
  'config.hardware.device',
  'runtime.powerState',
];

/** The objects of one retrieval, by moid, to resolve references between them. */
export class ObjectIndex {
  private readonly byMoid = new Map<string, ObjectContent>();

  constructor(objects: Iterable<ObjectContent>) {
    for (const o of objects) this.byMoid.set(o.obj.value, o);
  }

  get(ref: MoRef | undefined): ObjectContent | undefined {
    return ref ? this.byMoid.get(ref.value) : undefined;
  }

  nameOf(ref: MoRef | undefined): string | undefined {
    const name = this.get(ref)?.props.get('name');
    return name?.text;
  }

  all(): IterableIterator<ObjectContent> {
    return this.byMoid.values();
  }
}

function where(o: ObjectContent, path?: string): string {
  const name = o.props.get('name')?.text;
  return `${o.obj.type} ${o.obj.value}${name ? ` ("${name}")` : ''}${path ? ` ${path}` : ''}`;
}

function prop(o: ObjectContent, path: string): XmlElement | undefined {
  return o.props.get(path);
}

function text(o: ObjectContent, path: string): string | undefined {
  return prop(o, path)?.text;
}

function int(o: ObjectContent, path: string): number | undefined {
  const e = prop(o, path);
  return e ? asInt(e, where(o, path)) : undefined;
}

function bool(o: ObjectContent, path: string): boolean | undefined {
  const e = prop(o, path);
  return e ? asBool(e, where(o, path)) : undefined;
}

function ref(o: ObjectContent, path: string): MoRef | undefined {
  const e = prop(o, path);
  return e ? asMoRef(e, where(o, path)) : undefined;
}

/** Elements of an `ArrayOf…` value (`<val><ManagedObjectReference>…</ManagedObjectReference>…</val>`). */
function arrayItems(o: ObjectContent, path: string): XmlElement[] {
  return prop(o, path)?.children ?? [];
}

function managedRef(index: ObjectIndex, r: MoRef | undefined): ManagedRef | undefined {
  if (!r) return undefined;
  return { moid: r.value, name: index.nameOf(r) ?? r.value };
}

// ---------------------------------------------------------------------------------------------------
// VLANs

/** `config.defaultPortConfig.vlan` → access / trunk / pvlan / none. VLAN 0 (no tag) is `none`. */
export function classifyVlan(portConfig: XmlElement | undefined, at: string): Vlan {
  const vlanElement = portConfig?.children.find((c) => c.name === 'vlan');
  if (!vlanElement) return { kind: 'none' };
  const vlan = new Fields(vlanElement, `${at}.vlan`);
  switch (vlanElement.xsiType) {
    case 'VmwareDistributedVirtualSwitchVlanIdSpec': {
      const id = vlan.requiredInt('vlanId');
      if (id < 0 || id > 4094) throw badAnswer(`${at}.vlan.vlanId`, `VLAN id ${id} is outside 0–4094`);
      return id === 0 ? { kind: 'none' } : { kind: 'access', vlanId: id };
    }
    case 'VmwareDistributedVirtualSwitchTrunkVlanSpec': {
      const ranges = vlan.objects('vlanId').map((r) => ({ start: r.requiredInt('start'), end: r.requiredInt('end') }));
      for (const r of ranges) {
        if (r.start < 0 || r.end > 4094 || r.start > r.end)
          throw badAnswer(`${at}.vlan.vlanId`, `trunk range ${r.start}-${r.end} is not valid`);
      }
      return { kind: 'trunk', ranges };
    }
    case 'VmwareDistributedVirtualSwitchPvlanSpec':
      return { kind: 'pvlan', pvlanId: vlan.requiredInt('pvlanId') };
    default:
      throw badAnswer(`${at}.vlan`, `unknown VLAN specification type ${vlanElement.xsiType ?? '(no xsi:type)'}`);
  }
}

export function portgroupRecord(o: ObjectContent, index: ObjectIndex): PortgroupRecord {
  const dvsRef = ref(o, 'config.distributedVirtualSwitch');
  const dvs = index.get(dvsRef);
  const key = text(o, 'key') ?? o.obj.value;
  const uplinkOfSwitch = dvs
    ? arrayItems(dvs, 'config.uplinkPortgroup').some((e) => e.text.trim() === o.obj.value || e.text.trim() === key)
    : false;
  return {
    key,
    name: text(o, 'name') ?? key,
    switchName: (dvs && text(dvs, 'name')) ?? dvsRef?.value ?? '',
    switchUuid: dvs ? text(dvs, 'uuid') : undefined,
    vlan: classifyVlan(prop(o, 'config.defaultPortConfig'), where(o, 'config.defaultPortConfig')),
    uplink: bool(o, 'config.uplink') === true || uplinkOfSwitch,
  };
}

export function datastoreRecord(o: ObjectContent): DatastoreRecord {
  const capacityBytes = int(o, 'summary.capacity');
  const freeBytes = int(o, 'summary.freeSpace');
  return {
    moid: o.obj.value,
    name: text(o, 'name') ?? o.obj.value,
    type: text(o, 'summary.type'),
    url: text(o, 'summary.url'),
    ...(capacityBytes !== undefined ? { capacityBytes } : {}),
    ...(freeBytes !== undefined ? { freeBytes } : {}),
  };
}

// ---------------------------------------------------------------------------------------------------
// Devices

const NIC_TYPES = new Set([
  'VirtualE1000',
  'VirtualE1000e',
  'VirtualPCNet32',
  'VirtualVmxnet',
  'VirtualVmxnet2',
  'VirtualVmxnet3',
  'VirtualVmxnet3Vrdma',
  'VirtualSriovEthernetCard',
]);

const CONTROLLER_TYPES: Record<string, string> = {
  ParaVirtualSCSIController: 'pvscsi',
  VirtualLsiLogicController: 'lsilogic',
  VirtualLsiLogicSASController: 'lsilogicsas',
  VirtualBusLogicController: 'buslogic',
  VirtualNVMEController: 'nvme',
  VirtualAHCIController: 'ahci',
  VirtualIDEController: 'ide',
};

/** `VirtualVmxnet3` → `vmxnet3`, `VirtualLsiLogicSASController` → `lsilogicsas`. */
function shortType(xsiType: string): string {
  return xsiType
    .replace(/^Virtual/, '')
    .replace(/Controller$/, '')
    .toLowerCase();
}

/** Distributed ports by switch: `portKey(switchUuid, key)` → the portgroup the port belongs to. */
export type PortIndex = ReadonlyMap<string, string>;

export function portKey(switchUuid: string, key: string): string {
  return `${switchUuid}\u0000${key}`;
}

/**
 * A DistributedVirtualSwitchPortConnection: `portgroupKey` is optional (a NIC bound to a port may name
 * only the port), so the portgroup then comes from the port itself, or the NIC is untranslatable.
 */
function dvPortBacking(port: Fields, ports: PortIndex): NicBacking {
  const switchUuid = port.string('switchUuid');
  const key = port.string('portKey');
  const portgroupKey =
    port.string('portgroupKey') ?? (switchUuid && key !== undefined ? ports.get(portKey(switchUuid, key)) : undefined);
  if (portgroupKey !== undefined)
    return { kind: 'dvportgroup', portgroupKey, switchUuid, ...(key !== undefined ? { portKey: key } : {}) };
  const what =
    key !== undefined
      ? `distributed port ${key} on switch ${switchUuid ?? '(unnamed)'}`
      : `distributed port connection on switch ${switchUuid ?? '(unnamed)'}`;
  return { kind: 'other', backingType: `${what} whose portgroup vCenter did not name` };
}

function nicBacking(backing: Fields | undefined, ports: PortIndex): NicBacking {
  if (!backing) return { kind: 'other', backingType: '(none)' };
  const type = backing.type();
  switch (type) {
    case 'VirtualEthernetCardDistributedVirtualPortBackingInfo':
      return dvPortBacking(backing.requiredObject('port'), ports);
    case 'VirtualEthernetCardNetworkBackingInfo':
      return {
        kind: 'network',
        networkName: backing.requiredString('deviceName'),
        networkMoid: backing.moRef('network')?.value,
      };
    case 'VirtualEthernetCardOpaqueNetworkBackingInfo':
      return {
        kind: 'opaque',
        opaqueNetworkId: backing.requiredString('opaqueNetworkId'),
        opaqueNetworkType: backing.requiredString('opaqueNetworkType'),
      };
    default:
      return { kind: 'other', backingType: type };
  }
}

function diskRecord(disk: Fields, controllers: Map<number, { type: string; bus: number }>, index: ObjectIndex): VmDisk {
  const key = disk.requiredInt('key');
  const controllerKey = disk.requiredInt('controllerKey');
  const controller = controllers.get(controllerKey);
  if (!controller)
    throw badAnswer(disk.where, `disk ${key} is on controller ${controllerKey}, which the VM does not have`);
  const backing = disk.object('backing');
  const backingType = backing?.type() ?? '(none)';
  const capacityBytes = disk.int('capacityInBytes') ?? (disk.int('capacityInKB') ?? 0) * 1024;
  const datastoreRef = backing?.moRef('datastore');
  const rdm = backingType === 'VirtualDiskRawDiskMappingVer1BackingInfo';
  const fileName = backing?.string('fileName') ?? backing?.string('descriptorFileName') ?? '';
  return {
    key,
    label: disk.object('deviceInfo')?.string('label') ?? `disk ${key}`,
    controllerType: controller.type,
    controllerKey,
    controllerBusNumber: controller.bus,
    unitNumber: disk.int('unitNumber') ?? 0,
    capacityBytes,
    fileName,
    // The datastore's name from the retrieval, else from the file name (`[name] path`).
    datastore: datastoreRef
      ? {
          moid: datastoreRef.value,
          name: index.nameOf(datastoreRef) ?? /^\[([^\]]+)\]/.exec(fileName)?.[1] ?? datastoreRef.value,
        }
      : undefined,
    thinProvisioned: backing?.bool('thinProvisioned'),
    diskMode: backing?.string('diskMode') ?? 'persistent',
    rdm: rdm
      ? {
          compatibilityMode: backing!.string('compatibilityMode') ?? 'unknown',
          deviceName: backing!.string('deviceName'),
        }
      : undefined,
  };
}

/** `config.hardware.device` → NICs and disks (controllers only to name the disks' buses). */
export function devicesOf(
  deviceList: XmlElement | undefined,
  at: string,
  index: ObjectIndex,
  ports: PortIndex = new Map(),
): { nics: VmNic[]; disks: VmDisk[] } {
  const devices = (deviceList ? children(deviceList, 'VirtualDevice') : []).map((e, i) => new Fields(e, `${at}[${i}]`));
  const controllers = new Map<number, { type: string; bus: number }>();
  for (const d of devices) {
    const type = d.element.xsiType;
    if (type && d.has('busNumber'))
      controllers.set(d.requiredInt('key'), {
        type: CONTROLLER_TYPES[type] ?? shortType(type),
        bus: d.requiredInt('busNumber'),
      });
  }
  const nics: VmNic[] = [];
  const disks: VmDisk[] = [];
  for (const d of devices) {
    const type = d.type();
    if (type === 'VirtualDisk') {
      disks.push(diskRecord(d, controllers, index));
    } else if (NIC_TYPES.has(type) || d.has('macAddress')) {
      const key = d.requiredInt('key');
      nics.push({
        key,
        label: d.object('deviceInfo')?.string('label') ?? `NIC ${key}`,
        deviceType: shortType(type),
        macAddress: (d.string('macAddress') ?? '').toLowerCase(),
        backing: nicBacking(d.object('backing'), ports),
      });
    }
  }
  return { nics, disks };
}

// ---------------------------------------------------------------------------------------------------
// Guest addresses

/** 169.254.0.0/16 and fe80::/10: made up by the guest itself, never an address to keep. */
function isLinkLocal(ip: string): boolean {
  const family = isIP(ip);
  if (family === 4) return ip.startsWith('169.254.');
  if (family === 6) return /^fe[89ab][0-9a-f]?:/i.test(ip);
  return false;
}

/** `198.51.100.21` or `198.51.100.21/24` that is a usable (not link-local) address, else undefined. */
function usableAddress(value: string): string | undefined {
  const [ip = '', prefix, ...rest] = value.trim().split('/');
  const family = isIP(ip);
  if (!family || rest.length > 0 || isLinkLocal(ip)) return undefined;
  if (prefix === undefined) return ip;
  if (!/^\d+$/.test(prefix) || Number(prefix) > (family === 4 ? 32 : 128)) return undefined;
  // A prefix length of 0 is no guest's configured subnet (vcsim reports 0 for customized addresses): unknown.
  return Number(prefix) === 0 ? ip : `${ip}/${Number(prefix)}`;
}

function uniqueAddresses(values: Iterable<string>): string[] {
  const out: string[] = [];
  for (const v of values) {
    const a = usableAddress(v);
    if (a !== undefined && !out.includes(a)) out.push(a);
  }
  return out;
}

/**
 * `guest.net` (GuestNicInfo per guest interface) → addresses per VM NIC, matched by `deviceConfigId`
 * (the NIC's device key) or else by MAC; interfaces that are no VM NIC (a bridge inside the guest) are
 * left out. Addresses come with their prefix length from `ipConfig` where the guest gave it.
 */
function toolsAddresses(o: ObjectContent, nics: readonly VmNic[]): Map<VmNic, string[]> {
  const found = new Map<VmNic, string[]>();
  const at = where(o, 'guest.net');
  const net = prop(o, 'guest.net');
  for (const [i, e] of (net ? children(net, 'GuestNicInfo') : []).entries()) {
    const info = new Fields(e, `${at}[${i}]`);
    const deviceKey = info.int('deviceConfigId');
    const mac = info.string('macAddress')?.toLowerCase();
    const nic =
      nics.find((n) => deviceKey !== undefined && deviceKey >= 0 && n.key === deviceKey) ??
      nics.find((n) => mac !== undefined && n.macAddress === mac);
    if (!nic) continue;
    const configured = info.object('ipConfig')?.objects('ipAddress') ?? [];
    const listed =
      configured.length > 0
        ? configured.map((a) => {
            const prefix = a.int('prefixLength');
            return `${a.requiredString('ipAddress')}${prefix ? `/${prefix}` : ''}`;
          })
        : info.strings('ipAddress');
    found.set(nic, uniqueAddresses([...(found.get(nic) ?? []), ...listed]));
  }
  return found;
}

/**
 * The guest's addresses per NIC, in NIC order: VMware Tools' `guest.net` when it names any for the
 * VM's NICs (or, with one NIC, Tools' `guest.ipAddress`); otherwise the `guestinfo.ferry.ipaddress.<n>`
 * options (comma- or space-separated addresses of the n-th NIC; what is not an address is ignored).
 * Undefined when neither knows an address.
 */
export function guestAddressesOf(o: ObjectContent, nics: readonly VmNic[]): GuestNicAddresses[] | undefined {
  const tools = toolsAddresses(o, nics);
  const primary = uniqueAddresses([text(o, 'guest.ipAddress') ?? '']);
  if (![...tools.values()].some((a) => a.length > 0) && nics.length === 1 && primary.length > 0)
    tools.set(nics[0]!, primary);
  const fromTools = nics.flatMap((n) =>
    tools.get(n)?.length ? [{ mac: n.macAddress, addresses: tools.get(n)!, source: 'tools' as const }] : [],
  );
  if (fromTools.length > 0) return fromTools;
  const fromOptions = nics.flatMap((n, i) => {
    const option = prop(o, GUEST_ADDRESS_PATHS[i] ?? '');
    const value = option ? (child(option, 'value')?.text ?? '') : '';
    const addresses = uniqueAddresses(value.split(/[\s,]+/));
    return addresses.length > 0 ? [{ mac: n.macAddress, addresses, source: 'extraConfig' as const }] : [];
  });
  return fromOptions.length > 0 ? fromOptions : undefined;
}

// ---------------------------------------------------------------------------------------------------
// VMs

const POWER_STATES = new Set<PowerState>(['poweredOn', 'poweredOff', 'suspended']);

/** `/DC0/vm/apps`: the names from the root folder (excluded) down to the VM's folder. */
export function inventoryPath(index: ObjectIndex, start: MoRef | undefined, rootFolder: MoRef): string | undefined {
  const names: string[] = [];
  const seen = new Set<string>();
  for (let r = start; r;) {
    if (r.value === rootFolder.value) return `/${names.reverse().join('/')}`;
    const o = index.get(r);
    if (!o || seen.has(r.value)) return undefined; // chain leaves what was read
    seen.add(r.value);
    names.push(text(o, 'name') ?? r.value);
    r = ref(o, 'parent');
  }
  return undefined;
}

export type VmMapping = { ok: true; vm: VmRecord } | { ok: false; moid: string; name?: string; reason: string };

/**
 * Distributed ports the VMs' NICs are bound to without naming their portgroup, by switch uuid: these
 * need the switch asked (FetchDVPorts) before the NICs can be mapped.
 */
export function unnamedPorts(vms: Iterable<ObjectContent>): Map<string, Set<string>> {
  const bySwitch = new Map<string, Set<string>>();
  for (const o of vms) {
    const deviceList = prop(o, 'config.hardware.device');
    for (const device of deviceList ? children(deviceList, 'VirtualDevice') : []) {
      const backing = child(device, 'backing');
      const port =
        backing?.xsiType === 'VirtualEthernetCardDistributedVirtualPortBackingInfo'
          ? child(backing, 'port')
          : undefined;
      if (!port || child(port, 'portgroupKey')) continue;
      const switchUuid = child(port, 'switchUuid')?.text;
      const key = child(port, 'portKey')?.text;
      if (switchUuid === undefined || key === undefined) continue;
      if (!bySwitch.has(switchUuid)) bySwitch.set(switchUuid, new Set());
      bySwitch.get(switchUuid)!.add(key);
    }
  }
  return bySwitch;
}

export function vmRecord(
  o: ObjectContent,
  index: ObjectIndex,
  rootFolder: MoRef,
  ports: PortIndex = new Map(),
): VmMapping {
  const absent = VM_REQUIRED.filter((p) => !o.props.has(p));
  const name = text(o, 'name');
  if (absent.length > 0) {
    const denied = o.missing.filter((m) => absent.includes(m.path)).map((m) => `${m.path}: ${m.faultType}`);
    return {
      ok: false,
      moid: o.obj.value,
      name,
      reason: `vCenter reports no ${absent.join(', ')}${denied.length ? ` (${denied.join('; ')})` : ''}: the VM is inaccessible, orphaned or being created`,
    };
  }
  const firmware = text(o, 'config.firmware') ?? 'bios';
  if (firmware !== 'bios' && firmware !== 'efi')
    throw badAnswer(where(o, 'config.firmware'), `unknown firmware "${firmware}"`);
  const powerState = text(o, 'runtime.powerState') as PowerState;
  if (!POWER_STATES.has(powerState))
    throw badAnswer(where(o, 'runtime.powerState'), `unknown power state "${powerState}"`);
  const hostRef = ref(o, 'runtime.host');
  const host = index.get(hostRef);
  const clusterRef = host ? ref(host, 'parent') : undefined;
  const { nics, disks } = devicesOf(
    prop(o, 'config.hardware.device'),
    where(o, 'config.hardware.device'),
    index,
    ports,
  );
  const guestAddresses = guestAddressesOf(o, nics);
  const guestHostName = text(o, 'guest.hostName')?.trim();
  return {
    ok: true,
    vm: {
      moid: o.obj.value,
      name: name!,
      instanceUuid: text(o, 'config.instanceUuid'),
      guestId: text(o, 'config.guestId')!,
      firmware,
      template: bool(o, 'config.template') ?? false,
      numCpu: int(o, 'config.hardware.numCPU')!,
      numCoresPerSocket: int(o, 'config.hardware.numCoresPerSocket') ?? 1,
      memoryMb: int(o, 'config.hardware.memoryMB')!,
      powerState,
      host: managedRef(index, hostRef),
      cluster: clusterRef?.type === 'ClusterComputeResource' ? managedRef(index, clusterRef) : undefined,
      folder: inventoryPath(index, ref(o, 'parent'), rootFolder),
      hasSnapshot: arrayItems(o, 'rootSnapshot').length > 0,
      datastores: arrayItems(o, 'datastore').map(
        (e) => index.nameOf({ type: 'Datastore', value: e.text.trim() }) ?? e.text.trim(),
      ),
      nics,
      disks,
      ...(guestAddresses ? { guestAddresses } : {}),
      ...(guestHostName ? { guestHostName } : {}),
      ...cdromsAndTpmOf(prop(o, 'config.hardware.device'), where(o, 'config.hardware.device')),
    },
  };
}

/** vmRecord, but a VM with a value vim25 does not allow is skipped with the reason, not the whole discovery. */
export function mapVm(
  o: ObjectContent,
  index: ObjectIndex,
  rootFolder: MoRef,
  ports: PortIndex = new Map(),
): VmMapping {
  try {
    return vmRecord(o, index, rootFolder, ports);
  } catch (err) {
    if (!(err instanceof VsphereResponseError)) throw err;
    return { ok: false, moid: o.obj.value, name: text(o, 'name'), reason: err.message };
  }
}

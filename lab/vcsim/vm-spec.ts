import { element, moRef, optional, typed, type Xml } from '../../src/vsphere/envelope';

/** A VM to create, in the terms the lab needs (CreateVM_Task's VirtualMachineConfigSpec, WSDL order). */
export interface VmCreateSpec {
  name: string;
  guestId: string;
  firmware: 'bios' | 'efi';
  cpus: number;
  coresPerSocket?: number;
  memoryMb: number;
  /** Where the disks are. */
  datastore: string;
  /** Where the VM's home (vmx) is; default: with the disks. */
  homeDatastore?: string;
  controller: 'pvscsi' | 'lsilogic';
  disks: Array<{ bytes: number; mode?: string }>;
  /** `mac`: a manual MAC (vSphere's `addressType` manual), else generated. */
  nics: Array<{ adapter: 'vmxnet3' | 'e1000' | 'e1000e'; network: NicNetwork; mac?: string }>;
}

export type NicNetwork =
  | { kind: 'dvportgroup'; name: string; portgroupKey: string; switchUuid: string }
  | { kind: 'network'; name: string; moid: string };

const CONTROLLER_XSI = { pvscsi: 'ParaVirtualSCSIController', lsilogic: 'VirtualLsiLogicController' } as const;
const NIC_XSI = { vmxnet3: 'VirtualVmxnet3', e1000: 'VirtualE1000', e1000e: 'VirtualE1000e' } as const;

function deviceInfo(label: string, summary: string): Xml {
  return element('deviceInfo', element('label', label), element('summary', summary));
}

function add(device: Xml, fileOperation?: 'create'): Xml {
  // VirtualDeviceConfigSpec: operation, fileOperation, device.
  return element('deviceChange', element('operation', 'add'), optional('fileOperation', fileOperation), device);
}

/** `[ds] vm/vm.vmdk`, then `vm_1.vmdk`, … as vSphere names a VM's disks. */
export function diskFileName(datastore: string, vm: string, index: number): string {
  return `[${datastore}] ${vm}/${vm}${index === 0 ? '' : `_${index}`}.vmdk`;
}

/** The VirtualMachineConfigSpec of a new VM with one SCSI controller, its disks and its NICs. */
export function vmConfigSpec(spec: VmCreateSpec): Xml {
  const controllerKey = -100;
  const devices: Xml[] = [
    // VirtualDevice: key, deviceInfo, backing, connectable, slotInfo, controllerKey, unitNumber; then VirtualController: busNumber; VirtualSCSIController: sharedBus.
    add(
      typed(
        'device',
        CONTROLLER_XSI[spec.controller],
        element('key', controllerKey),
        deviceInfo('SCSI controller 0', spec.controller),
        element('busNumber', 0),
        element('sharedBus', 'noSharing'),
      ),
    ),
  ];
  spec.disks.forEach((disk, i) => {
    devices.push(
      add(
        typed(
          'device',
          'VirtualDisk',
          element('key', -200 - i),
          deviceInfo(`Hard disk ${i + 1}`, `${disk.bytes / 1024} KB`),
          // VirtualDiskFlatVer2BackingInfo: fileName, datastore, backingObjectId, diskMode, split, writeThrough, thinProvisioned.
          typed(
            'backing',
            'VirtualDiskFlatVer2BackingInfo',
            element('fileName', diskFileName(spec.datastore, spec.name, i)),
            element('diskMode', disk.mode ?? 'persistent'),
            element('thinProvisioned', true),
          ),
          element('controllerKey', controllerKey),
          element('unitNumber', i),
          element('capacityInBytes', disk.bytes),
        ),
        'create',
      ),
    );
  });
  spec.nics.forEach((nic, i) => {
    const backing =
      nic.network.kind === 'dvportgroup'
        ? typed(
            'backing',
            'VirtualEthernetCardDistributedVirtualPortBackingInfo',
            element(
              'port',
              element('switchUuid', nic.network.switchUuid),
              element('portgroupKey', nic.network.portgroupKey),
            ),
          )
        : typed(
            'backing',
            'VirtualEthernetCardNetworkBackingInfo',
            element('deviceName', nic.network.name),
            moRef('network', { type: 'Network', value: nic.network.moid }),
          );
    devices.push(
      add(
        typed(
          'device',
          NIC_XSI[nic.adapter],
          element('key', -300 - i),
          deviceInfo(`Network adapter ${i + 1}`, nic.network.name),
          backing,
          element(
            'connectable',
            element('startConnected', true),
            element('allowGuestControl', true),
            element('connected', false),
          ),
          // VirtualEthernetCard: addressType, macAddress.
          element('addressType', nic.mac ? 'manual' : 'generated'),
          optional('macAddress', nic.mac),
        ),
      ),
    );
  });
  // VirtualMachineConfigSpec: name, guestId, files, numCPUs, numCoresPerSocket, memoryMB, deviceChange, firmware.
  return element(
    'config',
    element('name', spec.name),
    element('guestId', spec.guestId),
    element('files', element('vmPathName', `[${spec.homeDatastore ?? spec.datastore}]`)),
    element('numCPUs', spec.cpus),
    optional('numCoresPerSocket', spec.coresPerSocket),
    element('memoryMB', spec.memoryMb),
    devices,
    element('firmware', spec.firmware),
  );
}

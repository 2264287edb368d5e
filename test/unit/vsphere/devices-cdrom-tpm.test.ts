import { cdromsAndTpmOf } from '../../../src/vsphere/devices-cdrom-tpm';
import { ObjectIndex, vmRecord } from '../../../src/vsphere/inventory-mapping';
import { readObjects } from '../../../src/vsphere/property-collector';
import { parseXml } from '../../../src/vsphere/xml';

const X = 'xmlns:XMLSchema-instance="http://www.w3.org/2001/XMLSchema-instance"';

/** config.hardware.device as vcsim writes it: two IDE controllers, a SATA one, CD drives on each kind of backing, a vTPM. */
const DEVICES = `
  <VirtualDevice XMLSchema-instance:type="VirtualIDEController"><key>200</key><deviceInfo><label>IDE 0</label></deviceInfo><busNumber>0</busNumber></VirtualDevice>
  <VirtualDevice XMLSchema-instance:type="VirtualIDEController"><key>201</key><deviceInfo><label>IDE 1</label></deviceInfo><busNumber>1</busNumber><device>3002</device></VirtualDevice>
  <VirtualDevice XMLSchema-instance:type="VirtualAHCIController"><key>15000</key><busNumber>0</busNumber></VirtualDevice>
  <VirtualDevice XMLSchema-instance:type="VirtualCdrom"><key>3002</key><deviceInfo><label>CD/DVD drive 1</label><summary>ISO [iso-ds] win/server2022.iso</summary></deviceInfo>
    <backing XMLSchema-instance:type="VirtualCdromIsoBackingInfo"><fileName>[iso-ds] win/server2022.iso</fileName><datastore type="Datastore">datastore-12</datastore></backing>
    <connectable><startConnected>true</startConnected><allowGuestControl>true</allowGuestControl><connected>false</connected></connectable>
    <controllerKey>201</controllerKey><unitNumber>0</unitNumber></VirtualDevice>
  <VirtualDevice XMLSchema-instance:type="VirtualCdrom"><key>16000</key><deviceInfo><label>CD/DVD drive 2</label></deviceInfo>
    <backing XMLSchema-instance:type="VirtualCdromRemotePassthroughBackingInfo"><deviceName></deviceName><useAutoDetect>false</useAutoDetect><exclusive>false</exclusive></backing>
    <connectable><startConnected>false</startConnected><allowGuestControl>true</allowGuestControl><connected>false</connected></connectable>
    <controllerKey>15000</controllerKey><unitNumber>1</unitNumber></VirtualDevice>
  <VirtualDevice XMLSchema-instance:type="VirtualCdrom"><key>3001</key><deviceInfo><label>CD/DVD drive 3</label></deviceInfo>
    <backing XMLSchema-instance:type="VirtualCdromAtapiBackingInfo"><deviceName>cdrom-200-1</deviceName><useAutoDetect>false</useAutoDetect></backing>
    <controllerKey>200</controllerKey><unitNumber>1</unitNumber></VirtualDevice>
  <VirtualDevice XMLSchema-instance:type="VirtualCdrom"><key>3000</key><deviceInfo><label>CD/DVD drive 4</label></deviceInfo>
    <backing XMLSchema-instance:type="VirtualCdromPassthroughBackingInfo"><deviceName>/vmfs/devices/cdrom/mpx.vmhba0:C0:T0:L0</deviceName><exclusive>false</exclusive></backing>
    <controllerKey>200</controllerKey><unitNumber>0</unitNumber></VirtualDevice>
  <VirtualDevice XMLSchema-instance:type="VirtualCdrom"><key>16001</key><deviceInfo><label>CD/DVD drive 5</label></deviceInfo>
    <backing XMLSchema-instance:type="VirtualCdromRemoteAtapiBackingInfo"><deviceName></deviceName><useAutoDetect>false</useAutoDetect></backing>
    <controllerKey>15000</controllerKey><unitNumber>2</unitNumber></VirtualDevice>
  <VirtualDevice XMLSchema-instance:type="VirtualCdrom"><key>16002</key><controllerKey>15000</controllerKey><unitNumber>3</unitNumber></VirtualDevice>
  <VirtualDevice XMLSchema-instance:type="VirtualTPM"><key>11000</key><deviceInfo><label>Virtual TPM</label><summary>Virtual TPM</summary></deviceInfo>
    <endorsementKeyCertificateSigningRequest>AAEC</endorsementKeyCertificateSigningRequest><endorsementKeyCertificate>AwQF</endorsementKeyCertificate></VirtualDevice>
  <VirtualDevice XMLSchema-instance:type="VirtualMachineVideoCard"><key>500</key></VirtualDevice>`;

const list = (devices: string) => parseXml(`<val ${X} XMLSchema-instance:type="ArrayOfVirtualDevice">${devices}</val>`);

describe('CD/DVD drives and the vTPM of config.hardware.device', () => {
  it('maps every CD drive by backing, with its controller, unit and power-on connection, and the vTPM', () => {
    expect(cdromsAndTpmOf(list(DEVICES), 'vm-7 config.hardware.device')).toEqual({
      cdroms: [
        {
          key: 3002,
          label: 'CD/DVD drive 1',
          controllerType: 'ide',
          controllerBusNumber: 1,
          unitNumber: 0,
          startConnected: true,
          backing: { kind: 'iso', fileName: '[iso-ds] win/server2022.iso' },
        },
        {
          key: 16000,
          label: 'CD/DVD drive 2',
          controllerType: 'ahci',
          controllerBusNumber: 0,
          unitNumber: 1,
          startConnected: false,
          backing: { kind: 'client-device' },
        },
        {
          key: 3001,
          label: 'CD/DVD drive 3',
          controllerType: 'ide',
          controllerBusNumber: 0,
          unitNumber: 1,
          startConnected: true,
          backing: { kind: 'host-device', deviceName: 'cdrom-200-1' },
        },
        {
          key: 3000,
          label: 'CD/DVD drive 4',
          controllerType: 'ide',
          controllerBusNumber: 0,
          unitNumber: 0,
          startConnected: true,
          backing: { kind: 'host-device', deviceName: '/vmfs/devices/cdrom/mpx.vmhba0:C0:T0:L0' },
        },
        {
          key: 16001,
          label: 'CD/DVD drive 5',
          controllerType: 'ahci',
          controllerBusNumber: 0,
          unitNumber: 2,
          startConnected: true,
          backing: { kind: 'client-device' },
        },
        {
          key: 16002,
          label: 'CD/DVD drive 16002',
          controllerType: 'ahci',
          controllerBusNumber: 0,
          unitNumber: 3,
          startConnected: true,
          backing: { kind: 'none' },
        },
      ],
      tpm: { key: 11000, label: 'Virtual TPM' },
    });
  });

  it('reads an ISO backing without a file as an empty drive, and an unknown backing as other', () => {
    const devices = list(`
      <VirtualDevice XMLSchema-instance:type="VirtualCdrom"><key>3000</key><backing XMLSchema-instance:type="VirtualCdromIsoBackingInfo"><fileName></fileName></backing></VirtualDevice>
      <VirtualDevice XMLSchema-instance:type="VirtualCdrom"><key>3001</key><backing XMLSchema-instance:type="VirtualCdromFutureBackingInfo"/></VirtualDevice>`);
    expect(cdromsAndTpmOf(devices, 'x').cdroms?.map((c) => c.backing)).toEqual([
      { kind: 'none' },
      { kind: 'other', backingType: 'VirtualCdromFutureBackingInfo' },
    ]);
  });

  it('adds nothing to a VM without CD drives or vTPM (records stay as they were)', () => {
    expect(
      cdromsAndTpmOf(
        list('<VirtualDevice XMLSchema-instance:type="VirtualMachineVideoCard"><key>500</key></VirtualDevice>'),
        'x',
      ),
    ).toEqual({});
    expect(cdromsAndTpmOf(undefined, 'x')).toEqual({});
  });

  it('puts them on the VM record', () => {
    const prop = (name: string, val: string, type?: string) =>
      `<propSet><name>${name}</name><val ${type ? `XMLSchema-instance:type="${type}"` : ''}>${val}</val></propSet>`;
    const objects = readObjects(
      parseXml(
        `<returnval ${X}><objects><obj type="VirtualMachine">vm-7</obj>` +
          prop('name', 'win11') +
          prop('config.guestId', 'windows11_64Guest') +
          prop('config.firmware', 'efi') +
          prop('config.hardware.numCPU', '2', 'xsd:int') +
          prop('config.hardware.memoryMB', '4096', 'xsd:int') +
          prop('config.hardware.device', DEVICES, 'ArrayOfVirtualDevice') +
          prop('runtime.powerState', 'poweredOff', 'VirtualMachinePowerState') +
          '</objects></returnval>',
      ),
    );
    const mapped = vmRecord(objects[0]!, new ObjectIndex(objects), { type: 'Folder', value: 'group-d1' });
    if (!mapped.ok) throw new Error(mapped.reason);
    expect(mapped.vm.cdroms?.map((c) => c.label)).toEqual([
      'CD/DVD drive 1',
      'CD/DVD drive 2',
      'CD/DVD drive 3',
      'CD/DVD drive 4',
      'CD/DVD drive 5',
      'CD/DVD drive 16002',
    ]);
    expect(mapped.vm.tpm).toEqual({ key: 11000, label: 'Virtual TPM' });
    expect(mapped.vm.nics).toEqual([]);
    expect(mapped.vm.disks).toEqual([]);
  });
});

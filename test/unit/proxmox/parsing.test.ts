import { z } from 'zod';
import { formatPropertyString, parsePropertyString, splitPropertyString } from '../../../src/proxmox/property-string';
import { formatUpid, isUpid, parseUpid } from '../../../src/proxmox/upid';
import { parseNic } from '../../../src/proxmox/nics';
import { checkSlot, parseDisk, parseDiskSize } from '../../../src/proxmox/disks';
import { pveBool, pveInt, pveNumber } from '../../../src/proxmox/quirks';
import { pendingSchema, resourcesSchema, vmConfigSchema } from '../../../src/proxmox/schemas';
import { encodeParams } from '../../../src/proxmox/transport';
import { vmPath } from '../../../src/proxmox/api';
import { ProxmoxInputError } from '../../../src/proxmox/errors';

describe('property strings', () => {
  it('splits key=value pairs, a default-key value and quoted commas', () => {
    expect(splitPropertyString('local-lvm:vm-101-disk-0,iothread=1,serial="a,b",size=32G')).toEqual([
      { value: 'local-lvm:vm-101-disk-0' },
      { key: 'iothread', value: '1' },
      { key: 'serial', value: 'a,b' },
      { key: 'size', value: '32G' },
    ]);
    expect(parsePropertyString('order=scsi0;ide2;net0')).toEqual({ order: 'scsi0;ide2;net0' });
  });

  it('refuses a value without key when there is no default key, and duplicate keys', () => {
    expect(() => parsePropertyString('virtio,bridge=vmbr0')).toThrow(/value "virtio" has no key/);
    expect(() => parsePropertyString('a=1,a=2')).toThrow(/key "a" appears twice/);
  });

  it('writes the default key first and bare, quoting commas', () => {
    expect(formatPropertyString({ size: '4G', file: 'local:100/vm-100-disk-0.raw', serial: 'x,y' }, 'file')).toBe(
      'local:100/vm-100-disk-0.raw,size=4G,serial="x,y"',
    );
    const text = 'local-lvm:vm-1-disk-0,cache=none,size=8G';
    expect(formatPropertyString(parsePropertyString(text, 'file'), 'file')).toBe(text);
  });
});

describe('UPIDs', () => {
  const upid = 'UPID:pve1:0012ABCD:0A1B2C3D:6750B3C1:qmcreate:101:ferry@pve!ferry:';
  it('parses node, type, id, user and hex times', () => {
    expect(parseUpid(upid)).toEqual({
      upid,
      node: 'pve1',
      pid: 0x12abcd,
      pstart: 0x0a1b2c3d,
      starttime: 0x6750b3c1,
      type: 'qmcreate',
      id: '101',
      user: 'ferry@pve!ferry',
    });
    expect(formatUpid(parseUpid(upid))).toBe(upid);
  });
  it('rejects what is not a UPID, saying what the shape is', () => {
    expect(isUpid('UPID:pve1:1:2:3:qmcreate:101:root@pam:')).toBe(false);
    expect(() => parseUpid('null')).toThrow(/UPID:node:pid:pstart:starttime:type:id:user:/);
  });
});

describe('NIC and disk values', () => {
  it('reads model and MAC from the model=MAC form and from model/macaddr keys', () => {
    expect(parseNic('virtio=bc:24:11:2d:6a:3c,bridge=vmbr0,firewall=1,tag=20')).toEqual({
      model: 'virtio',
      macaddr: 'BC:24:11:2D:6A:3C',
      options: { bridge: 'vmbr0', firewall: '1', tag: '20' },
    });
    expect(parseNic('model=e1000,macaddr=00:50:56:01:02:03,bridge=vmbr1')).toEqual({
      model: 'e1000',
      macaddr: '00:50:56:01:02:03',
      options: { bridge: 'vmbr1' },
    });
  });
  it('reads volume, size in bytes and options of a disk', () => {
    expect(parseDisk('local-lvm:vm-101-disk-0,iothread=1,size=32G')).toEqual({
      volume: 'local-lvm:vm-101-disk-0',
      sizeBytes: 32 * 1024 ** 3,
      options: { iothread: '1' },
    });
    expect(parseDisk('local:iso/d.iso,media=cdrom')).toEqual({
      volume: 'local:iso/d.iso',
      options: { media: 'cdrom' },
    });
    expect(parseDiskSize('528K')).toBe(528 * 1024);
    expect(() => parseDiskSize('12X')).toThrow(/not a disk size: "12X"/);
  });
  it('accepts only the slots qemu-server has', () => {
    expect(checkSlot('scsi30')).toBe('scsi30');
    for (const bad of ['scsi31', 'virtio16', 'ide4', 'sata6', 'net0', 'scsi01'])
      expect(() => checkSlot(bad)).toThrow(/not a disk slot/);
    // Bad input fails at once, never retried: a FerryError of category invalid.
    const err = (() => {
      try {
        vmPath('pve1', 99);
      } catch (e) {
        return e as ProxmoxInputError;
      }
    })();
    expect(err).toBeInstanceOf(ProxmoxInputError);
    expect([err!.message, err!.retryable]).toEqual(['not a VMID (100–999999999): 99', false]);
  });
});

describe('PVE quirks in answers', () => {
  it('reads 0/1 and "0"/"1" booleans, integers and numbers sent as strings', () => {
    expect([0, 1, '0', '1', true].map((v) => pveBool.parse(v))).toEqual([false, true, false, true, true]);
    expect(pveInt.parse('106')).toBe(106);
    expect(pveNumber.parse('2.5')).toBe(2.5);
    expect(pveBool.safeParse('yes').success).toBe(false);
    expect(pveInt.safeParse('10.5').success).toBe(false);
  });
  it('reads a config as strings with its digest, and rejects one without a digest, naming the field', () => {
    const digest = 'a'.repeat(40);
    expect(vmConfigSchema.parse({ digest, cores: 2, memory: '2048', name: 'x' })).toEqual({
      digest,
      values: { cores: '2', memory: '2048', name: 'x' },
    });
    const missing = vmConfigSchema.safeParse({ cores: 2 });
    expect(missing.success).toBe(false);
    expect(z.prettifyError(missing.error!)).toMatch(/digest/);
    expect(vmConfigSchema.safeParse({ digest, cores: { nested: 1 } }).success).toBe(false);
  });
  it('reads cluster resources with string vmids and 0/1 template flags; pending rows with delete codes', () => {
    expect(
      resourcesSchema.parse([
        { id: 'qemu/100', type: 'qemu', vmid: '100', template: 0, node: 'pve1', extra: 'kept' },
      ])[0],
    ).toMatchObject({ vmid: 100, template: false, extra: 'kept' });
    expect(
      pendingSchema.parse([
        { key: 'memory', value: 2048, pending: '4096' },
        { key: 'net1', delete: 2 },
      ]),
    ).toEqual([
      { key: 'memory', value: '2048', pending: '4096' },
      { key: 'net1', delete: 2 },
    ]);
  });
});

describe('request encoding', () => {
  it('form-encodes booleans as 1/0 and drops undefined values', () => {
    expect(encodeParams({ onboot: true, template: false, name: 'a b', skip: undefined, cores: 2 })).toBe(
      'onboot=1&template=0&name=a+b&cores=2',
    );
  });
});

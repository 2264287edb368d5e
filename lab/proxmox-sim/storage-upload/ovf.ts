import { closeSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import path from 'node:path';
import { SaxesParser } from 'saxes';
import { fail } from '../api-error';
import { imageInfo } from '../qemu-img';
import type { Volume } from '../storage';

/**
 * An OVA or OVF in a storage's import folder read as pve-storage's GuestImport/OVF.pm parse_ovf and
 * DirPlugin get_import_metadata do: the VM's name, cores, memory, OS type and firmware, its disks by the
 * controller slot each sits on (with the volume to import from: inside the OVA, or the file beside the
 * OVF), its NICs' models, and the warnings (an OVA must be extracted, EFI state is lost). Values from the
 * OVF stay the strings the XPath found.
 */
const OVF_NS = 'http://schemas.dmtf.org/ovf/envelope/1';
const RASD_NS = 'http://schemas.dmtf.org/wbem/wscim/1/cim-schema/2/CIM_ResourceAllocationSettingData';
const VMW_NS = 'http://www.vmware.com/schema/ovf';

interface XmlElement {
  ns: string;
  name: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  text: string;
}

function parseXml(text: string): XmlElement {
  const parser = new SaxesParser({ xmlns: true });
  const root: XmlElement = { ns: '', name: '#root', attrs: {}, children: [], text: '' };
  const stack = [root];
  parser.on('opentag', (tag) => {
    const attrs: Record<string, string> = {};
    for (const a of Object.values(tag.attributes)) {
      const attr = a as { uri: string; local: string; value: string };
      attrs[`${attr.uri}|${attr.local}`] = attr.value;
    }
    const el: XmlElement = { ns: tag.uri ?? '', name: tag.local ?? tag.name, attrs, children: [], text: '' };
    stack[stack.length - 1]!.children.push(el);
    stack.push(el);
  });
  parser.on('text', (t) => (stack[stack.length - 1]!.text += t));
  parser.on('closetag', () => void stack.pop());
  parser.write(text).close();
  return root;
}

const kids = (el: XmlElement | undefined, ns: string, name: string) =>
  (el?.children ?? []).filter((c) => c.ns === ns && c.name === name);
const kid = (el: XmlElement | undefined, ns: string, name: string) => kids(el, ns, name)[0];
const value = (el: XmlElement | undefined, ns: string, name: string) => kid(el, ns, name)?.text.trim() ?? '';

/** The members of a tar archive (ustar headers): name, data offset, size. */
export function tarMembers(file: string): Array<{ name: string; offset: number; size: number }> {
  const fd = openSync(file, 'r');
  const members: Array<{ name: string; offset: number; size: number }> = [];
  try {
    const total = statSync(file).size;
    const header = Buffer.alloc(512);
    for (let at = 0; at + 512 <= total;) {
      readSync(fd, header, 0, 512, at);
      if (header.every((b) => b === 0)) break;
      const field = (from: number, to: number) => header.subarray(from, to).toString('latin1').replace(/\0.*$/s, '');
      const prefix = field(345, 500);
      const name = prefix ? `${prefix}/${field(0, 100)}` : field(0, 100);
      const size = parseInt(field(124, 136).trim() || '0', 8);
      if (Number.isNaN(size)) throw new Error('not a tar archive');
      if (['0', '\0', ''].includes(field(156, 157))) members.push({ name, offset: at + 512, size });
      at += 512 + Math.ceil(size / 512) * 512;
    }
  } finally {
    closeSync(fd);
  }
  return members;
}

function ovfText(v: Volume): string {
  if (v.format !== 'ova') return readFileSync(v.file, 'utf8');
  const member = tarMembers(v.file).find((m) => m.name.endsWith('.ovf'));
  if (!member) throw fail('ova archive has no .ovf file inside');
  const fd = openSync(v.file, 'r');
  try {
    const buf = Buffer.alloc(member.size);
    readSync(fd, buf, 0, member.size, member.offset);
    return buf.toString('utf8');
  } finally {
    closeSync(fd);
  }
}

const OSTYPES: Record<string, string> = {
  ...Object.fromEntries(
    [36, 79, 80, 82, 83, 84, 85, 87, 89, 90, 91, 92, 93, 94, 95, 96, 99, 100, 101, 106, 107, 108, 109].map((i) => [
      String(i),
      'l26',
    ]),
  ),
  '18': 'winxp',
  '29': 'solaris',
  '81': 'solaris',
  '58': 'w2k',
  '67': 'wxp',
  '71': 'wxp',
  '72': 'wxp',
  '75': 'wxp',
  '69': 'w2k3',
  '70': 'w2k3',
  '73': 'wvista',
  '74': 'wvista',
  '76': 'w2k8',
  '77': 'w2k8',
  '97': 'l24',
  '98': 'l24',
  '103': 'win7',
  '105': 'win7',
  ...Object.fromEntries([111, 112, 113, 114, 115, 117, 118].map((i) => [String(i), 'win8'])),
  ...Object.fromEntries([116, 119, 120, 121].map((i) => [String(i), 'win10'])),
  '122': 'win11',
  '123': 'win11',
};
/** Controller resource types and the bus PVE puts their disks on. */
const CONTROLLER_BUS: Record<string, string> = { '5': 'ide', '6': 'scsi', '20': 'sata' };
const NIC_MODELS = ['e1000', 'e1000e', 'vmxnet3'];

/** get_import_metadata over an OVA or OVF volume. */
export async function importMetadata(v: Volume): Promise<Record<string, unknown>> {
  if (v.vtype !== 'import') throw fail(`invalid content type '${v.vtype}'`);
  if (v.format !== 'ova' && v.format !== 'ovf') throw fail('invalid format');
  const isOva = v.format === 'ova';
  const envelope = kid(parseXml(ovfText(v)), OVF_NS, 'Envelope');
  const system = kid(envelope, OVF_NS, 'VirtualSystem');
  const hardware = kid(system, OVF_NS, 'VirtualHardwareSection');
  const items = kids(hardware, OVF_NS, 'Item');
  const ofType = (type: number) => items.filter((i) => value(i, RASD_NS, 'ResourceType') === String(type));
  const qm: Record<string, unknown> = {};
  const name = value(system, OVF_NS, 'Name') || system?.attrs[`${OVF_NS}|id`] || '';
  if (name) qm.name = name.replace(/\s+/g, '-').replace(/[^a-zA-Z0-9\-.]/g, '');
  qm.cores = value(ofType(3)[0], RASD_NS, 'VirtualQuantity');
  qm.memory = value(ofType(4)[0], RASD_NS, 'VirtualQuantity');
  qm.ostype = OSTYPES[kid(system, OVF_NS, 'OperatingSystemSection')?.attrs[`${OVF_NS}|id`] ?? ''] ?? 'other';
  const firmware = kids(hardware, VMW_NS, 'Config').find((c) => c.attrs[`${VMW_NS}|key`] === 'firmware');
  if ((firmware?.attrs[`${VMW_NS}|value`] || 'seabios') === 'efi') qm.bios = 'ovmf';

  const disks: Record<string, unknown> = {};
  const bootOrder: string[] = [];
  const diskSection = kid(envelope, OVF_NS, 'DiskSection');
  const references = kid(envelope, OVF_NS, 'References');
  for (const item of ofType(17)) {
    const resource = /^(?:ovf:)?\/([\w\-.~]+)\/([\w\-.~]+)$/.exec(value(item, RASD_NS, 'HostResource'));
    if (!resource) continue;
    const disk = kids(diskSection, OVF_NS, 'Disk').find((d) => d.attrs[`${OVF_NS}|diskId`] === resource[2]);
    const fileRef = disk?.attrs[`${OVF_NS}|fileRef`];
    if (!fileRef) continue;
    const controller = items.find((i) => value(i, RASD_NS, 'InstanceID') === value(item, RASD_NS, 'Parent'));
    const bus = CONTROLLER_BUS[value(controller, RASD_NS, 'ResourceType')];
    const href = kids(references, OVF_NS, 'File').find((f) => f.attrs[`${OVF_NS}|id`] === fileRef)?.attrs[
      `${OVF_NS}|href`
    ];
    if (!controller || !href) continue;
    const slot = `${bus ?? ''}${value(item, RASD_NS, 'AddressOnParent')}`;
    const unit = /^\s*byte\s*\*\s*(\d+)\s*\^\s*(\d+)\s*$/.exec(disk!.attrs[`${OVF_NS}|capacityAllocationUnits`] ?? '');
    let size: number | undefined = unit
      ? Number(disk!.attrs[`${OVF_NS}|capacity`]) * Number(unit[1]) ** Number(unit[2])
      : undefined;
    if (!isOva) {
      size = (await imageInfo(path.join(path.dirname(v.file), href))).virtualSize;
    }
    disks[slot] = {
      volid: isOva ? `${v.storage.id}:${v.volname}/${href}` : `${v.storage.id}:import/${href}`,
      ...(size !== undefined ? { size } : {}),
    };
    bootOrder.push(slot);
  }
  if (bootOrder.length > 0) qm.boot = `order=${bootOrder.join(';')}`;
  const warnings: Array<Record<string, string>> = isOva ? [{ type: 'ova-needs-extracting' }] : [];
  if (qm.bios === 'ovmf') {
    disks.efidisk0 = 1;
    warnings.push({ type: 'efi-state-lost', key: 'bios', value: 'ovmf' });
  }
  const net = Object.fromEntries(
    ofType(10).map((item, i) => {
      const model = value(item, RASD_NS, 'ResourceSubType').toLowerCase();
      return [`net${i}`, { model: NIC_MODELS.includes(model) ? model : 'e1000' }];
    }),
  );
  return { type: 'vm', source: v.volname, 'create-args': qm, disks, warnings, net };
}

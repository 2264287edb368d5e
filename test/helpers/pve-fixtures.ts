import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Agent, FormData, request } from 'undici';
import { readFileSync } from 'node:fs';
import type { SimFixture } from './proxmox';

/**
 * Test material for the Proxmox simulator's content and SDN routes: a root@pam ticket, a multipart
 * upload as a browser or client sends it, an OVA built with tar (an OVF and a VMDK made by qemu-img),
 * and local HTTP servers standing in for what PVE reaches out to (a web server to download from, the
 * PowerDNS API an SDN DNS plugin checks).
 */
export interface Ticket {
  cookie: string;
  csrf: string;
  headers: Record<string, string>;
}

export async function rootTicket(fx: SimFixture): Promise<Ticket> {
  const login = await fx.raw('POST', '/api2/json/access/ticket', {
    form: { username: 'root@pam', password: fx.credentials.rootPassword },
    headers: { authorization: '' },
  });
  if (login.status !== 200) throw new Error(`root login failed: ${login.status}`);
  const cookie = `PVEAuthCookie=${encodeURIComponent(login.body.data.ticket)}`;
  const csrf = login.body.data.CSRFPreventionToken as string;
  return { cookie, csrf, headers: { authorization: '', cookie, csrfpreventiontoken: csrf } };
}

/** A multipart POST to …/upload with its fields in pveproxy's order (content, checksum-algorithm, checksum, the file). */
export async function upload(
  fx: SimFixture,
  node: string,
  storage: string,
  fields: { content: string; filename: string; data: Buffer; checksum?: [string, string] },
  headers: Record<string, string> = {},
): Promise<{ status: number; body: { data: unknown; message?: string } }> {
  const form = new FormData();
  form.append('content', fields.content);
  if (fields.checksum) {
    form.append('checksum-algorithm', fields.checksum[0]);
    form.append('checksum', fields.checksum[1]);
  }
  form.append('filename', new Blob([fields.data]), fields.filename);
  const dispatcher = new Agent({ connect: { ca: readFileSync(fx.sim.caFile, 'utf8') } });
  try {
    const res = await request(`${fx.sim.url}/api2/json/nodes/${node}/storage/${storage}/upload`, {
      method: 'POST',
      body: form,
      headers: { authorization: `PVEAPIToken=${fx.credentials.tokenId}=${fx.credentials.tokenSecret}`, ...headers },
      dispatcher,
    });
    const text = await res.body.text();
    return { status: res.statusCode, body: text ? JSON.parse(text) : { data: null } };
  } finally {
    await dispatcher.close();
  }
}

/** An OVA (tar of an OVF and its VMDK) of a 2-core, 1 GiB, EFI Debian VM with one SCSI disk and a vmxnet3 NIC. */
export function makeOva(name: string): Buffer {
  const dir = mkdtempSync(path.join(tmpdir(), 'ferry-ova-'));
  execFileSync('qemu-img', [
    'create',
    '-q',
    '-f',
    'vmdk',
    '-o',
    'subformat=streamOptimized',
    path.join(dir, 'disk1.vmdk'),
    '64M',
  ]);
  writeFileSync(
    path.join(dir, `${name}.ovf`),
    `<?xml version="1.0" encoding="UTF-8"?>
<Envelope xmlns="http://schemas.dmtf.org/ovf/envelope/1" xmlns:ovf="http://schemas.dmtf.org/ovf/envelope/1"
  xmlns:rasd="http://schemas.dmtf.org/wbem/wscim/1/cim-schema/2/CIM_ResourceAllocationSettingData"
  xmlns:vmw="http://www.vmware.com/schema/ovf">
  <References><File ovf:id="file1" ovf:href="disk1.vmdk"/></References>
  <DiskSection><Info>Disks</Info>
    <Disk ovf:diskId="vmdisk1" ovf:fileRef="file1" ovf:capacity="64" ovf:capacityAllocationUnits="byte * 2^20"/>
  </DiskSection>
  <VirtualSystem ovf:id="${name}">
    <Name>${name} appliance</Name>
    <OperatingSystemSection ovf:id="96"><Info>Debian 64-Bit</Info></OperatingSystemSection>
    <VirtualHardwareSection>
      <Item><rasd:InstanceID>1</rasd:InstanceID><rasd:ResourceType>3</rasd:ResourceType><rasd:VirtualQuantity>2</rasd:VirtualQuantity></Item>
      <Item><rasd:InstanceID>2</rasd:InstanceID><rasd:ResourceType>4</rasd:ResourceType><rasd:VirtualQuantity>1024</rasd:VirtualQuantity></Item>
      <Item><rasd:InstanceID>3</rasd:InstanceID><rasd:ResourceType>6</rasd:ResourceType><rasd:ResourceSubType>lsilogic</rasd:ResourceSubType></Item>
      <Item><rasd:AddressOnParent>0</rasd:AddressOnParent><rasd:HostResource>ovf:/disk/vmdisk1</rasd:HostResource><rasd:InstanceID>4</rasd:InstanceID><rasd:Parent>3</rasd:Parent><rasd:ResourceType>17</rasd:ResourceType></Item>
      <Item><rasd:InstanceID>5</rasd:InstanceID><rasd:ResourceSubType>VmxNet3</rasd:ResourceSubType><rasd:ResourceType>10</rasd:ResourceType></Item>
      <vmw:Config vmw:key="firmware" vmw:value="efi"/>
    </VirtualHardwareSection>
  </VirtualSystem>
</Envelope>
`,
  );
  const ova = path.join(dir, `${name}.ova`);
  execFileSync('tar', ['-cf', ova, '-C', dir, `${name}.ovf`, 'disk1.vmdk']);
  return readFileSync(ova);
}

/** A local HTTP server answering each path from a table (status 404 otherwise). */
export async function serveFiles(
  files: Record<string, Buffer | string>,
): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const body = files[req.url ?? ''];
    if (body === undefined) return void res.writeHead(404).end('not found');
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { parseNic } from '../../../src/proxmox/nics';
import { parsePropertyString } from '../../../src/proxmox/property-string';
import type { DriveSource } from './command-line';
import type { GuestNetworkHints } from './guest-network';

const run = promisify(execFile);

/**
 * The NoCloud cloud-init drive qemu-server builds at `vm_start` for a VM with a `cloudinit` drive
 * (`ide2: local:cloudinit` → the volume `vm-<vmid>-cloudinit`, a CD-ROM): PVE::QemuServer::Cloudinit's
 * generate_nocloud writes /user-data, /network-config (version 1), /meta-data and /vendor-data and
 * makes an ISO 9660 image labelled `cidata` with `genisoimage -quiet -iso-level 3 -R -V cidata`, then
 * copies it into the volume. The simulator does the same at start (no `cicustom` snippets, and no
 * fallback to the host's resolv.conf for `nameserver`/`searchdomain`: only the VM's own settings).
 */
export const CLOUD_INIT_VOLUME = /(^|[:/])vm-(\d+)-cloudinit(\.(raw|qcow2))?$/;

/** The cloud-init drive's key (ide2, …) and volume, if the config has one for this VM. */
export function cloudInitDrive(
  vmid: number,
  config: Record<string, string>,
): { key: string; volid: string } | undefined {
  for (const [key, value] of Object.entries(config)) {
    if (!/^(ide|sata|scsi)\d+$/.test(key)) continue;
    const volid = parsePropertyString(value, 'file').file ?? '';
    const m = CLOUD_INIT_VOLUME.exec(volid);
    if (m && Number(m[2]) === vmid) return { key, volid };
  }
  return undefined;
}

interface IpConfig {
  ip?: string;
  gw?: string;
}

const netIds = (config: Record<string, string>) =>
  Object.keys(config)
    .filter((k) => /^net\d+$/.test(k))
    .sort()
    .map((k) => k.slice(3));

function ipConfig(config: Record<string, string>, id: string): IpConfig | undefined {
  const text = config[`ipconfig${id}`];
  return text ? (parsePropertyString(text) as IpConfig) : undefined;
}

function netmask(prefix: number): string {
  const bits = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
  return [24, 16, 8, 0].map((s) => (bits >>> s) & 255).join('.');
}

const split = (v: string | undefined) => (v ?? '').split(/[\s,;]+/).filter(Boolean);

/** qemu-server's cloudinit_userdata (without a password hash or keys unless set). */
export function nocloudUserData(vmid: number, config: Record<string, string>): string {
  let hostname = config.name ?? `VM${vmid}`;
  let fqdn = hostname;
  if (hostname.includes('.')) hostname = hostname.replace(/\..*$/, '');
  else if (config.searchdomain) fqdn = `${hostname}.${split(config.searchdomain)[0]}`;
  let text = `#cloud-config\nhostname: ${hostname}\nmanage_etc_hosts: true\nfqdn: ${fqdn}\n`;
  if (config.ciuser !== undefined) text += `user: ${config.ciuser}\n`;
  if (config.ciuser === 'root') text += 'disable_root: False\n';
  if (config.cipassword !== undefined) text += `password: ${config.cipassword}\n`;
  if (config.sshkeys !== undefined) {
    const keys = decodeURIComponent(config.sshkeys)
      .split('\n')
      .map((k) => k.trim())
      .filter(Boolean);
    text += `ssh_authorized_keys:\n${keys.map((k) => `  - ${k}\n`).join('')}`;
  }
  text += 'chpasswd:\n  expire: False\n';
  if (config.ciuser !== 'root') text += 'users:\n  - default\n';
  if (config.ciupgrade === undefined || config.ciupgrade === '1') text += 'package_upgrade: true\n';
  return text;
}

/** qemu-server's nocloud_network: network-config version 1, one `physical` entry per NIC with an ipconfig. */
export function nocloudNetwork(config: Record<string, string>): string {
  let text = 'version: 1\nconfig:\n';
  for (const id of netIds(config)) {
    const ip = ipConfig(config, id);
    if (!ip) continue;
    const mac = parseNic(config[`net${id}`]!).macaddr.toLowerCase();
    text += `    - type: physical\n      name: eth${id}\n      mac_address: '${mac}'\n      subnets:\n`;
    if (ip.ip === 'dhcp') text += '      - type: dhcp4\n';
    else if (ip.ip) {
      const [addr, prefix] = ip.ip.split('/');
      text += `      - type: static\n        address: '${addr}'\n        netmask: '${netmask(Number(prefix))}'\n`;
      if (ip.gw) text += `        gateway: '${ip.gw}'\n`;
    }
  }
  const nameservers = split(config.nameserver);
  const search = split(config.searchdomain);
  if (nameservers.length || search.length) {
    text += '    - type: nameserver\n';
    if (nameservers.length) text += `      address:\n${nameservers.map((n) => `      - '${n}'\n`).join('')}`;
    if (search.length) text += `      search:\n${search.map((s) => `      - '${s}'\n`).join('')}`;
  }
  return text;
}

/** The guest's addresses as the simulator's network planning needs them (guest-network.ts), from `ipconfigN`. */
export function hintsFromCloudInit(config: Record<string, string>, ports: number[]): GuestNetworkHints {
  const hints: GuestNetworkHints = {};
  for (const id of netIds(config)) {
    const ip = ipConfig(config, id);
    const [addr, prefix] = ip?.ip?.split('/') ?? [];
    if (!addr || isIP(addr) !== 4 || !prefix) continue;
    hints[`net${id}`] = { address: `${addr}/${prefix}`, ...(ip!.gw ? { gateway: ip!.gw } : {}), ports };
  }
  return hints;
}

/** Builds the NoCloud ISO from the VM's config and writes it into the cloud-init volume. */
export async function writeCloudInitDrive(
  vmid: number,
  config: Record<string, string>,
  volume: DriveSource,
): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), `ferry-cloudinit-${vmid}-`));
  try {
    const files = path.join(dir, 'files');
    const iso = path.join(dir, 'cidata.iso');
    const user = nocloudUserData(vmid, config);
    const network = nocloudNetwork(config);
    const meta = `instance-id: ${createHash('sha1')
      .update(user + network)
      .digest('hex')}\n`;
    mkdirSync(files);
    writeFileSync(path.join(files, 'user-data'), user);
    writeFileSync(path.join(files, 'network-config'), network);
    writeFileSync(path.join(files, 'meta-data'), meta);
    writeFileSync(path.join(files, 'vendor-data'), '');
    await run('genisoimage', ['-quiet', '-iso-level', '3', '-R', '-V', 'cidata', '-o', iso, files]);
    await run('qemu-img', ['convert', '-q', '-f', 'raw', '-O', volume.format, iso, volume.path]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

import { execFileSync } from 'node:child_process';
import path from 'node:path';
import type { GuestInterface } from '../../../lab/guest-image/guest-agent-client';
import { guestImage } from '../../../lab/guest-image/paths';
import { type SimulatorAdmin } from '../../../lab/proxmox-sim/admin-client';
import { nocloudNetwork, nocloudUserData } from '../../../lab/proxmox-sim/qemu/cloud-init';
import type { ProxmoxClient } from '../../../src/proxmox';
import { startSim, type SimFixture } from '../../helpers/proxmox';
import { readBanner } from '../../helpers/tcp-banner';
import { until } from '../../helpers/wait';

/**
 * A cloud-init drive as Proxmox VE builds it: `ide2: local:cloudinit` with `ipconfig0` and `nameserver`
 * gives the VM a NoCloud ISO (label cidata) made at start, and the lab guest, imported with import-from
 * and carrying no settings of its own, takes its hostname and address from it on the NIC with its MAC.
 */
const NODE = 'pve1';
const VMID = 710;
const MAC = 'BC:24:11:07:10:01';
const ADDRESS = '198.51.100.23';

describe('cloud-init drive (NoCloud) as qemu-server writes it', () => {
  it('network-config version 1 and user-data in PVE\'s words', () => {
    const config = { name: 'web01', net0: `virtio=${MAC},bridge=vmbr0`, net1: 'virtio=BC:24:11:07:10:02,bridge=vmbr0', ipconfig0: `ip=${ADDRESS}/23,gw=198.51.100.1`, nameserver: '192.0.2.3 192.0.2.4', searchdomain: 'lab.example' };
    expect(nocloudNetwork(config)).toBe(
      'version: 1\nconfig:\n' +
        `    - type: physical\n      name: eth0\n      mac_address: '${MAC.toLowerCase()}'\n      subnets:\n` +
        `      - type: static\n        address: '${ADDRESS}'\n        netmask: '255.255.254.0'\n        gateway: '198.51.100.1'\n` +
        "    - type: nameserver\n      address:\n      - '192.0.2.3'\n      - '192.0.2.4'\n      search:\n      - 'lab.example'\n",
    );
    expect(nocloudUserData(VMID, { ...config, ciuser: 'ops' })).toBe(
      '#cloud-config\nhostname: web01\nmanage_etc_hosts: true\nfqdn: web01.lab.example\nuser: ops\nchpasswd:\n  expire: False\nusers:\n  - default\npackage_upgrade: true\n',
    );
  });
});

describe('a VM with a cloud-init drive boots the lab guest on its ipconfig0 address', () => {
  const image = guestImage();
  let fx: SimFixture;
  let client: ProxmoxClient;
  let admin: SimulatorAdmin;
  const api = (method: string, p: string) => fx.raw(method, `/api2/json/nodes/${NODE}/qemu/${p}`);

  beforeAll(async () => {
    fx = await startSim('9.1');
    client = fx.client();
    admin = fx.admin();
    // The plain lab image: no ferry/vm.conf on it, so every setting must come from the cloud-init drive.
    const importDir = fx.importDir(NODE);
    execFileSync('cp', ['--sparse=always', image.raw('mac'), path.join(importDir, 'plain.raw')]);
  }, 60_000);

  afterAll(async () => {
    await fx?.stop();
  });

  it('ide2 local:cloudinit becomes the VM\'s cloud-init volume (a CD-ROM); start builds the ISO; the guest has the address, the hostname and the probe', async () => {
    await client.vms.create({
      node: NODE,
      vmid: VMID,
      name: 'ci-guest',
      memory: 512,
      cores: 1,
      agent: true,
      scsihw: 'virtio-scsi-single',
      boot: 'order=scsi0',
      extra: {
        scsi0: 'local-lvm:0,import-from=local:import/plain.raw',
        ide2: 'local:cloudinit',
        net0: `virtio=${MAC},bridge=vmbr0`,
        ipconfig0: `ip=${ADDRESS}/24,gw=198.51.100.1`,
        nameserver: '198.51.100.53',
      },
    }, { timeoutMs: 60_000 });
    const { values } = await client.config.get(NODE, VMID);
    expect(values.ide2).toMatch(new RegExp(`^local:${VMID}/vm-${VMID}-cloudinit\\.(raw|qcow2),media=cdrom$`));

    const startedAt = Date.now();
    await client.power.start(NODE, VMID, { timeoutMs: 60_000 });
    const qemu = await admin.qemu(VMID);
    if (!qemu.running) throw new Error('the admin API does not list the running QEMU');
    expect(qemu.commandLine.some((a) => /vm-710-cloudinit\.(raw|qcow2),if=none,id=drive-ide2,media=cdrom,format=(raw|qcow2)/.test(a))).toBe(true);
    // The forwards follow the cloud-init address (the image has no settings of its own).
    expect(qemu.forwards.map((f) => [f.nic, f.guestAddress, f.guestPort])).toEqual([
      ['net0', ADDRESS, image.manifest.probe.port],
      ['net0', ADDRESS, 22],
    ]);
    await until('the guest agent to answer', async () => ((await api('POST', `${VMID}/agent/ping`)).status === 200 ? true : undefined), 120_000, 250);
    process.stdout.write(`cloud-init guest: status/start to agent ping ${((Date.now() - startedAt) / 1000).toFixed(1)} s (TCG)\n`);
    const nic = await until(`${ADDRESS}/24 on the NIC with MAC ${MAC}`, async () => {
      const r = await api('GET', `${VMID}/agent/network-get-interfaces`);
      const found = (r.body.data?.result as GuestInterface[] | undefined)?.find((i) => i['hardware-address'] === MAC.toLowerCase());
      return found?.['ip-addresses']?.some((a) => a['ip-address'] === ADDRESS && a.prefix === 24) ? found : undefined;
    }, 30_000, 500);
    expect(nic.name).toBe('ens18');
    const host = await fx.raw('POST', `/api2/json/nodes/${NODE}/qemu/${VMID}/agent`, { form: { command: 'get-host-name' } });
    expect(host.body.data).toEqual({ result: { 'host-name': 'ci-guest' } });
    expect(await until('the probe banner', () => readBanner(qemu.forwards[0]!.hostPort), 30_000, 500)).toBe(`${image.manifest.probe.banner} ci-guest`);
  }, 200_000);
});

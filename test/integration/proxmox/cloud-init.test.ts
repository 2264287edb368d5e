import { nocloudNetwork, nocloudUserData } from '../../../lab/proxmox-sim/qemu/cloud-init';
import type { ProxmoxClient } from '../../../src/proxmox';
import { startSim, type SimFixture } from '../../helpers/proxmox';

/**
 * A cloud-init drive as Proxmox VE builds it: `ide2: local:cloudinit` with `ipconfig0` and `nameserver`
 * gives the VM a NoCloud ISO (label cidata) made at start, from which the guest takes its hostname and
 * its address on the NIC with its MAC.
 */
const NODE = 'pve1';
const VMID = 710;
const MAC = 'BC:24:11:07:10:01';
const ADDRESS = '198.51.100.23';

describe('cloud-init drive (NoCloud) as qemu-server writes it', () => {
  it("network-config version 1 and user-data in PVE's words", () => {
    const config = {
      name: 'web01',
      net0: `virtio=${MAC},bridge=vmbr0`,
      net1: 'virtio=BC:24:11:07:10:02,bridge=vmbr0',
      ipconfig0: `ip=${ADDRESS}/23,gw=198.51.100.1`,
      nameserver: '192.0.2.3 192.0.2.4',
      searchdomain: 'lab.example',
    };
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

/**
 * The boot of a cloud-init guest (the ISO built at start and given to QEMU, the forwards and the probe
 * on the ipconfig0 address, the hostname) is asserted where a guest boots anyway:
 * test/integration/provision/real-guests-provision.test.ts (scsi30 cloud-init drive, NetBox address).
 * Here only what needs no boot: the ide2 form of the drive becomes the VM's cloud-init volume.
 */
describe('a VM with a cloud-init drive on ide2', () => {
  let fx: SimFixture;
  let client: ProxmoxClient;

  beforeAll(async () => {
    fx = await startSim('9.1');
    client = fx.client();
  }, 60_000);

  afterAll(async () => {
    await fx?.stop();
  });

  it("ide2 local:cloudinit becomes the VM's cloud-init volume (a CD-ROM)", async () => {
    await client.vms.create(
      {
        node: NODE,
        vmid: VMID,
        name: 'ci-guest',
        memory: 512,
        cores: 1,
        agent: true,
        extra: {
          scsi0: 'local-lvm:1',
          ide2: 'local:cloudinit',
          net0: `virtio=${MAC},bridge=vmbr0`,
          ipconfig0: `ip=${ADDRESS}/24,gw=198.51.100.1`,
          nameserver: '198.51.100.53',
        },
      },
      { timeoutMs: 60_000 },
    );
    const { values } = await client.config.get(NODE, VMID);
    expect(values.ide2).toMatch(new RegExp(`^local:${VMID}/vm-${VMID}-cloudinit\\.(raw|qcow2),media=cdrom$`));
    expect(values.ipconfig0).toBe(`ip=${ADDRESS}/24,gw=198.51.100.1`);
  });
});

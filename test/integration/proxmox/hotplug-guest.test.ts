import path from 'node:path';
import { guestImage } from '../../../lab/guest-image/paths';
import { makeGuestDisk } from '../../../lab/guest-image/per-vm-config';
import type { SimulatorAdmin } from '../../../lab/proxmox-sim/admin-client';
import { qmpCommand } from '../../../lab/qemu/qmp';
import { startSim, type SimFixture } from '../../helpers/proxmox';
import { simApi, type SimApi } from '../../helpers/sim-api';
import { readBanner } from '../../helpers/tcp-banner';
import { until } from '../../helpers/wait';

/**
 * One real guest (the lab's Debian under TCG, with its real guest agent) changed while it runs, as
 * qemu-server does it on PVE, and what the guest itself then sees:
 * - memory hot-added as DIMMs (Memory.pm qemu_memory_hotplug; the VM started with `-m size=1024,slots=255,
 *   maxmem=…` and a NUMA node, memory hotplug needing NUMA) and onlined by the guest's kernel;
 * - a vCPU hot-added (qemu_cpu_hotplug: device_add of `qemu64-x86_64-cpu,id=cpu2,…`), onlined by udev;
 * - its disk grown (resize_vm: QMP block_resize; virtio-scsi tells the guest, whose sd driver rereads the
 *   capacity), and a second disk plugged and detached again (vm_deviceplug/vm_deviceunplug: kept as unused0);
 * - its NIC moved to another VLAN with the same MAC (vmconfig_update_net: tap moved, link down and up):
 *   the guest answers again once its NIC is on the VLAN where its address lives;
 * - `link_down=1` (set_link): the guest loses carrier and answers no more, until the link is back;
 * - a restart-only change (`cores`) pending, the running QEMU untouched, applied by the reboot.
 */
const NODE = 'pve1';
const VMID = 760;
const MAC = 'BC:24:11:07:60:01';
const ADDRESS = '198.51.100.30';
const SUBNET = '198.51.100.0/24';

describe('a running real guest changed live as qemu-server hotplugs, PVE 9.1', () => {
  const image = guestImage();
  let fx: SimFixture;
  let sim: SimApi;
  let admin: SimulatorAdmin;
  let probePort: number;
  const vm = (rest = '') => `/nodes/${NODE}/qemu/${VMID}${rest}`;
  const config = async () => sim.ok('GET', vm('/config?current=1'));
  const pendingKeys = async () =>
    ((await sim.ok('GET', vm('/pending'))) as Array<{ key: string; pending?: unknown; delete?: number }>)
      .filter((r) => r.pending !== undefined || r.delete !== undefined)
      .map((r) => r.key);
  /** A file in the guest, read by its agent (agent/file-read). */
  const guestFile = async (file: string) => {
    const r = await fx.raw('GET', `/api2/json${vm('/agent/file-read')}?file=${encodeURIComponent(file)}`);
    if (r.status !== 200) throw new Error(`agent/file-read ${file}: ${r.status} ${r.body?.message}`);
    return String(r.body.data.content).trim();
  };
  const memTotalKiB = async () => Number(/^MemTotal:\s+(\d+) kB$/m.exec(await guestFile('/proc/meminfo'))![1]);
  const answers = () => readBanner(probePort).then((b) => b === `${image.manifest.probe.banner} guest${VMID}`);
  const report = (line: string) => process.stdout.write(`${line}\n`);

  beforeAll(async () => {
    fx = await startSim('9.1');
    sim = simApi(fx);
    admin = fx.admin();
    await makeGuestDisk(
      'mac',
      path.join(fx.importDir(NODE), `guest${VMID}.raw`),
      { hostname: `guest${VMID}`, nics: [{ mac: MAC, address: `${ADDRESS}/24`, gateway: '198.51.100.254' }] },
      image,
    );
    await sim.createVm(VMID, {
      name: `guest${VMID}`,
      memory: '1024',
      numa: '1',
      sockets: '1',
      cores: '2',
      vcpus: '1',
      hotplug: 'network,disk,usb,memory,cpu',
      agent: '1',
      scsihw: 'virtio-scsi-single',
      scsi0: `local-lvm:0,import-from=local:import/guest${VMID}.raw`,
      net0: `virtio=${MAC},bridge=vmbr0,tag=100`,
      boot: 'order=scsi0',
    });
    // The guest's subnet lives on VLAN 100 of vmbr0.
    await admin.setSubnets({ [SUBNET]: { bridge: 'vmbr0', tag: 100 } });
  }, 120_000);
  afterAll(() => fx?.stop());

  it('starts with memory and CPU hotplug laid out as qemu-server does; the guest boots and answers on its VLAN', async () => {
    const started = Date.now();
    expect(await sim.task('POST', vm('/status/start'))).toBe('OK');
    const qemu = await admin.qemu(VMID);
    if (!qemu.running) throw new Error('no QEMU for the guest');
    expect(qemu.commandLine).toEqual(
      expect.arrayContaining([
        '-smp',
        '1,sockets=1,cores=2,maxcpus=2',
        '-m',
        expect.stringMatching(/^size=1024,slots=255,maxmem=\d+M$/),
        '-numa',
        'node,nodeid=0,cpus=0-1,memdev=ram-node0',
      ]),
    );
    probePort = qemu.forwards.find((f) => f.guestPort === image.manifest.probe.port)!.hostPort;
    await until(
      'the guest agent',
      async () => ((await fx.raw('POST', `/api2/json${vm('/agent/ping')}`)).status === 200 ? true : undefined),
      600_000,
      500,
    );
    await until('the probe on the guest address', async () => ((await answers()) ? true : undefined), 180_000, 500);
    report(`boot to probe (TCG): ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }, 800_000);

  it('memory 1024 → 2048 MiB: two 512 MiB DIMMs plugged live, nothing pending, the guest onlines them', async () => {
    const before = await memTotalKiB();
    await sim.ok('PUT', vm('/config'), { memory: '2048' });
    expect((await config()).memory).toBe('2048');
    expect(await pendingKeys()).toEqual([]);
    const qemu = await admin.qemu(VMID);
    if (!qemu.running) throw new Error('no QEMU');
    const dimms = (await qmpCommand(qemu.qmpSocket, 'query-memory-devices')) as Array<{
      data: { id: string; size: number };
    }>;
    expect(dimms.map((d) => [d.data.id, d.data.size / 1024 ** 2])).toEqual([
      ['dimm0', 512],
      ['dimm1', 512],
    ]);
    const after = await until(
      'the guest to see the new memory',
      async () => {
        const total = await memTotalKiB();
        return total - before >= 1024 * 1024 ? total : undefined;
      },
      120_000,
      500,
    );
    report(`guest MemTotal: ${before} kB → ${after} kB (+${((after - before) / 1024).toFixed(0)} MiB)`);
    // A hotplug qemu-server refuses: 400 with the reason, the change left pending, QEMU's DIMMs untouched.
    const low = await fx.raw('PUT', `/api2/json${vm('/config')}`, { form: { memory: '512' } });
    expect([low.status, low.body.errors?.memory]).toEqual([
      400,
      expect.stringMatching(/^hotplug problem - memory can't be lower than 1024 MB at /),
    ]);
    expect(await pendingKeys()).toEqual(['memory']);
    expect(((await qmpCommand(qemu.qmpSocket, 'query-memory-devices')) as unknown[]).length).toBe(2);
    await sim.ok('PUT', vm('/config'), { revert: 'memory' });
    expect(await pendingKeys()).toEqual([]);
  }, 180_000);

  it('vcpus 1 → 2: cpu2 plugged live; the guest brings it online', async () => {
    expect(await guestFile('/sys/devices/system/cpu/online')).toBe('0');
    await sim.ok('PUT', vm('/config'), { vcpus: '2' });
    expect((await config()).vcpus).toBe(2);
    const online = await until(
      'the guest to bring the new vCPU online',
      async () => ((await guestFile('/sys/devices/system/cpu/online')) === '0-1' ? '0-1' : undefined),
      120_000,
      500,
    );
    report(`guest CPUs online: 0 → ${online}`);
  }, 180_000);

  it('resize +128M: a `resize` task, block_resize on the running QEMU, the guest sees sda grow; shrinking refused', async () => {
    const sectors = async () => Number(await guestFile('/sys/block/sda/size'));
    const before = await sectors();
    expect(before).toBe((384 * 1024 ** 2) / 512);
    const upid = (await sim.ok('PUT', vm('/resize'), { disk: 'scsi0', size: '+128M' })) as string;
    expect(upid).toContain(`:resize:${VMID}:`);
    expect(await sim.finish(upid)).toBe('OK');
    expect((await config()).scsi0).toBe(`local-lvm:vm-${VMID}-disk-0,size=512M`);
    const after = await until(
      'the guest to see the new size',
      async () => ((await sectors()) === (512 * 1024 ** 2) / 512 ? sectors() : undefined),
      60_000,
      500,
    );
    report(`guest /sys/block/sda/size: ${before} → ${after} sectors (384 → 512 MiB)`);
    const shrink = (await sim.ok('PUT', vm('/resize'), { disk: 'scsi0', size: '256M' })) as string;
    expect(await sim.finish(shrink)).toBe('shrinking disks is not supported');
  }, 120_000);

  it('a second disk: plugged live (its virtio-scsi controller first), detached to unused0 live, gone from the guest', async () => {
    await sim.ok('PUT', vm('/config'), { scsi1: 'local-lvm:1' });
    expect((await config()).scsi1).toBe(`local-lvm:vm-${VMID}-disk-1,size=1G`);
    const seen = await until(
      'the guest to see the new disk',
      async () =>
        Number(await guestFile('/sys/block/sdb/size').catch(() => '0')) > 0
          ? guestFile('/sys/block/sdb/size')
          : undefined,
      120_000,
      500,
    );
    expect(Number(seen)).toBe(1024 ** 3 / 512);
    await sim.ok('PUT', vm('/config'), { delete: 'scsi1' });
    const detached = await config();
    expect([detached.scsi1, detached.unused0]).toEqual([undefined, `local-lvm:vm-${VMID}-disk-1`]);
    await until(
      'the disk to leave the guest',
      async () =>
        (await guestFile('/sys/block/sdb/size').then(
          () => false,
          () => true,
        ))
          ? true
          : undefined,
      60_000,
      500,
    );
    report('second disk: sdb 1 GiB seen in the guest, then gone; config unused0');
  }, 200_000);

  it('net0 to VLAN 300 with the same MAC: silent while its subnet is elsewhere, answering again once it follows', async () => {
    await admin.setSubnets({ [SUBNET]: { bridge: 'vmbr0', tag: 300 } }); // the network team moved the subnet
    expect(await answers()).toBe(false);
    await sim.ok('PUT', vm('/config'), { net0: `virtio=${MAC},bridge=vmbr0,tag=300` });
    expect((await config()).net0).toBe(`virtio=${MAC},bridge=vmbr0,tag=300`);
    expect(await pendingKeys()).toEqual([]);
    const qemu = await admin.qemu(VMID);
    if (!qemu.running) throw new Error('no QEMU');
    expect(qemu.nics.net0).toEqual({ segment: { bridge: 'vmbr0', tag: 300 }, linkUp: true });
    const moved = Date.now();
    await until('the guest to answer on VLAN 300', async () => ((await answers()) ? true : undefined), 60_000, 250);
    report(`moved to VLAN 300: answering again after ${((Date.now() - moved) / 1000).toFixed(1)} s`);
    const nics = (await sim.ok('GET', vm('/agent/network-get-interfaces'))).result as Array<{
      'hardware-address': string;
      'ip-addresses'?: Array<{ 'ip-address': string }>;
    }>;
    const nic = nics.find((n) => n['hardware-address'] === MAC.toLowerCase());
    expect(nic?.['ip-addresses']?.map((a) => a['ip-address'])).toContain(ADDRESS);
  }, 120_000);

  it('link_down=1 isolates the guest (no carrier, no answer); cleared, it answers again', async () => {
    await sim.ok('PUT', vm('/config'), { net0: `virtio=${MAC},bridge=vmbr0,link_down=1,tag=300` });
    expect(await guestFile('/sys/class/net/ens18/carrier')).toBe('0');
    expect(await answers()).toBe(false);
    await sim.ok('PUT', vm('/config'), { net0: `virtio=${MAC},bridge=vmbr0,tag=300` });
    expect(await guestFile('/sys/class/net/ens18/carrier')).toBe('1');
    await until(
      'the guest to answer with its link up',
      async () => ((await answers()) ? true : undefined),
      60_000,
      250,
    );
  }, 120_000);

  it('cores 2 → 3 waits for a restart (the running QEMU keeps 2 possible vCPUs); the reboot applies it', async () => {
    await sim.ok('PUT', vm('/config'), { cores: '3' });
    expect(await sim.ok('GET', vm('/pending'))).toEqual(
      expect.arrayContaining([{ key: 'cores', value: 2, pending: 3 }]),
    );
    expect(await guestFile('/sys/devices/system/cpu/possible')).toBe('0-1');
    const reboot = (await sim.ok('POST', vm('/status/reboot'))) as string;
    expect(await sim.finish(reboot)).toBe('OK');
    expect(await pendingKeys()).toEqual([]);
    expect((await config()).cores).toBe(3);
    const qemu = await admin.qemu(VMID);
    if (!qemu.running) throw new Error('no QEMU after the reboot');
    expect(qemu.commandLine).toEqual(expect.arrayContaining(['-smp', '1,sockets=1,cores=3,maxcpus=3']));
    probePort = qemu.forwards.find((f) => f.guestPort === image.manifest.probe.port)!.hostPort;
    await until(
      'the guest agent after the reboot',
      async () => ((await fx.raw('POST', `/api2/json${vm('/agent/ping')}`)).status === 200 ? true : undefined),
      600_000,
      500,
    );
    const possible = await until(
      'the guest after the reboot',
      async () => guestFile('/sys/devices/system/cpu/possible').catch(() => undefined),
      60_000,
      500,
    );
    expect(possible).toBe('0-2');
    report(`after the reboot: possible CPUs 0-1 → ${possible}, MemTotal ${await memTotalKiB()} kB`);
  }, 800_000);
});

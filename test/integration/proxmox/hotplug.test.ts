import { existsSync } from 'node:fs';
import { imageInfo } from '../../../lab/proxmox-sim/qemu-img';
import { answerProblems } from '../../helpers/answer-types';
import { FLAVOURS, startSim, type SimFixture } from '../../helpers/proxmox';
import { rootTicket } from '../../helpers/pve-fixtures';
import { simApi, type SimApi } from '../../helpers/sim-api';

/**
 * Pending versus live on VMs the simulator marks running (no real QEMU; the real guest's side is
 * hotplug-guest.test.ts), each rule as qemu-server has it:
 * - PVE/API2/Qemu.pm update_vm_api: every change into [PENDING], then vmconfig_apply_pending (stopped) or
 *   vmconfig_hotplug_pending (running) for the options of this request only; `revert`, `delete`, `force`,
 *   `digest`, the conflicts it refuses; errors left pending and answered per option ("hotplug problem - …");
 * - PVE/QemuServer.pm vmconfig_hotplug_pending, vmconfig_update_net, vmconfig_update_disk, vm_deviceunplug,
 *   qemu_cpu_hotplug; PVE/QemuServer/Memory.pm qemu_memory_hotplug and config;
 * - pve-guest-common GuestHelpers.pm config_with_pending_array (`GET …/pending`);
 * - PVE/API2/Qemu.pm resize_vm (`PUT …/resize`).
 */
describe.each(FLAVOURS)('pending and hotplug as qemu-server decides, PVE %s', (flavour) => {
  let fx: SimFixture;
  let sim: SimApi;
  const vm = (vmid: number, rest = '') => `/nodes/pve1/qemu/${vmid}${rest}`;
  const put = (vmid: number, form: Record<string, string>) =>
    fx.raw('PUT', `/api2/json${vm(vmid, '/config')}`, { form });
  const current = async (vmid: number) => sim.ok('GET', vm(vmid, '/config?current=1'));
  const pending = async (vmid: number) => {
    const rows = await sim.ok('GET', vm(vmid, '/pending'));
    return (rows as Array<{ key: string; pending?: unknown; delete?: number }>).filter(
      (r) => r.pending !== undefined || r.delete !== undefined,
    );
  };
  const start = async (vmid: number) => expect(await sim.task('POST', vm(vmid, '/status/start'))).toBe('OK');
  const volumeFile = (value: string) => fx.sim.cluster.storages.resolve(value.split(',')[0]!, 'pve1').file;

  beforeAll(async () => {
    fx = await startSim(flavour);
    sim = simApi(fx);
  });
  afterAll(() => fx.stop());

  it('update_vm_api: a stopped VM takes every change at once; a running one the fast-plug options, the rest waits', async () => {
    await sim.createVm(300, { memory: '1024', cores: '1', scsi0: 'local-lvm:1', boot: 'order=scsi0' });
    await sim.ok('PUT', vm(300, '/config'), { memory: '2048', cores: '2' });
    expect(await current(300)).toMatchObject({ memory: '2048', cores: 2 });
    expect(await pending(300)).toEqual([]);
    await start(300);
    await sim.ok('PUT', vm(300, '/config'), { memory: '4096', cores: '4', description: 'web', onboot: '1' });
    // vmgenid is none of check_vm_modify_config_perm's options: only root@pam may set or delete it.
    const refused = await put(300, { delete: 'vmgenid' });
    expect([refused.status, refused.body.message]).toEqual([500, "only root can set 'vmgenid' config\n"]);
    const asRoot = await fx.raw('PUT', `/api2/json${vm(300, '/config')}`, {
      form: { delete: 'vmgenid' },
      headers: (await rootTicket(fx)).headers,
    });
    expect([asRoot.status, asRoot.body.message]).toEqual([200, undefined]);
    expect(await current(300)).toMatchObject({ memory: '2048', cores: 2, description: 'web', onboot: 1 });
    expect(await pending(300)).toEqual([
      { key: 'cores', value: 2, pending: 4 },
      { key: 'memory', value: '2048', pending: '4096' },
      { key: 'vmgenid', value: expect.stringMatching(/^[0-9a-f-]{36}$/), delete: 1 },
    ]);
    const rows = await sim.ok('GET', vm(300, '/pending'));
    expect(answerProblems(flavour, 'GET /nodes/{node}/qemu/{vmid}/pending', rows)).toEqual([]);
    // The view with pending applied is the default config answer.
    expect(await sim.ok('GET', vm(300, '/config'))).toMatchObject({ memory: '4096', cores: 4 });
  });

  it('vmconfig_update_net: a new bridge, tag, rate or link_down is live with the MAC kept; a new model needs `network`', async () => {
    await sim.createVm(301, { memory: '512', net0: 'virtio=BC:24:11:00:03:01,bridge=vmbr0,tag=100' });
    await start(301);
    await sim.ok('PUT', vm(301, '/config'), { net0: 'virtio=BC:24:11:00:03:01,bridge=vmbr1,tag=300' });
    expect((await current(301)).net0).toBe('virtio=BC:24:11:00:03:01,bridge=vmbr1,tag=300');
    await sim.ok('PUT', vm(301, '/config'), {
      net0: 'virtio=BC:24:11:00:03:01,bridge=vmbr1,tag=300,link_down=1,rate=10',
    });
    expect((await current(301)).net0).toBe('virtio=BC:24:11:00:03:01,bridge=vmbr1,link_down=1,rate=10,tag=300');
    expect(await pending(301)).toEqual([]);
    // `hotplug` itself changes live unless cpu or memory is in the old or new value.
    await sim.ok('PUT', vm(301, '/config'), { hotplug: 'disk' });
    expect((await current(301)).hotplug).toBe('disk');
    await sim.ok('PUT', vm(301, '/config'), {
      net0: 'e1000=BC:24:11:00:03:01,bridge=vmbr1',
      net1: 'virtio,bridge=vmbr0',
    });
    expect((await pending(301)).map((r) => r.key)).toEqual(['net0', 'net1']);
    // A tag change goes live even so; the model change waiting in pending does not come along.
    await sim.ok('PUT', vm(301, '/config'), { revert: 'net0,net1' });
    await sim.ok('PUT', vm(301, '/config'), { net0: 'virtio=BC:24:11:00:03:01,bridge=vmbr1,tag=200' });
    expect((await current(301)).net0).toBe('virtio=BC:24:11:00:03:01,bridge=vmbr1,tag=200');
    await sim.ok('PUT', vm(301, '/config'), { hotplug: 'network' });
    await sim.ok('PUT', vm(301, '/config'), {
      net0: 'e1000=BC:24:11:00:03:01,bridge=vmbr1',
      net1: 'virtio,bridge=vmbr0',
    });
    expect(await current(301)).toMatchObject({
      net0: 'e1000=BC:24:11:00:03:01,bridge=vmbr1',
      net1: expect.stringMatching(/^virtio=BC:24:11(:[0-9A-F]{2}){3},bridge=vmbr0$/),
    });
    expect(await pending(301)).toEqual([]);
  });

  it('vmconfig_update_disk and vm_deviceunplug: SCSI disks plug and detach to unusedN live, IDE/SATA wait, the boot disk stays', async () => {
    await sim.createVm(302, {
      memory: '512',
      scsihw: 'virtio-scsi-single',
      scsi0: 'local-lvm:1',
      ide2: 'none,media=cdrom',
      boot: 'order=scsi0',
    });
    await start(302);
    await sim.ok('PUT', vm(302, '/config'), { scsi1: 'local-lvm:1' });
    const scsi1 = (await current(302)).scsi1 as string;
    expect(scsi1).toMatch(/^local-lvm:vm-302-disk-1,size=1G$/);
    await sim.ok('PUT', vm(302, '/config'), { sata1: 'local-lvm:1' });
    const sata1 = (await pending(302)).find((r) => r.key === 'sata1')?.pending as string;
    expect(sata1).toBe('local-lvm:vm-302-disk-2,size=1G');
    // Reverting a disk that was only pending keeps its new volume as unusedN (the delete path registers it).
    await sim.ok('PUT', vm(302, '/config'), { revert: 'sata1' });
    expect(await pending(302)).toEqual([]);
    expect((await current(302)).unused0).toBe('local-lvm:vm-302-disk-2');
    await sim.ok('PUT', vm(302, '/config'), { delete: 'scsi1' });
    const detached = await current(302);
    expect(detached.scsi1).toBeUndefined();
    expect(detached.unused1).toBe('local-lvm:vm-302-disk-1');
    expect(existsSync(volumeFile(scsi1))).toBe(true);
    await sim.ok('PUT', vm(302, '/config'), { scsi2: 'local-lvm:1' });
    const scsi2 = (await current(302)).scsi2 as string;
    await sim.ok('PUT', vm(302, '/config'), { delete: 'scsi2', force: '1' });
    expect(existsSync(volumeFile(scsi2))).toBe(false);
    // The boot disk: 400 with the reason, the deletion left pending; the async API fails its task alike.
    const boot = await put(302, { delete: 'scsi0' });
    expect([boot.status, boot.body.errors]).toEqual([
      400,
      { scsi0: "hotplug problem - can't unplug bootdisk 'scsi0'\n" },
    ]);
    // The deletion took scsi0 out of the boot order too: that waits as well (boot is never hotplugged).
    expect(await pending(302)).toEqual([
      { key: 'boot', value: 'order=scsi0', pending: '' },
      { key: 'scsi0', value: 'local-lvm:vm-302-disk-0,size=1G', delete: 1 },
    ]);
    const task = await sim.ok('POST', vm(302, '/config'), { delete: 'scsi0', force: '1' });
    expect(await sim.finish(task)).toBe(
      "400 Parameter verification failed. scsi0: hotplug problem - can't unplug bootdisk 'scsi0' ",
    );
    expect(sim.log(task)[0]).toBe('update VM 302: -delete scsi0 -force 1');
    expect(await pending(302)).toEqual([
      { key: 'boot', value: 'order=scsi0', pending: '' },
      { key: 'scsi0', value: 'local-lvm:vm-302-disk-0,size=1G', delete: 2 },
    ]);
    await sim.ok('PUT', vm(302, '/config'), { revert: 'scsi0,boot' });
    expect(await pending(302)).toEqual([]);
    // Options of the same volume: cache waits, the I/O limits and size= are live; a CD-ROM changes at once.
    const scsi0 = (await current(302)).scsi0 as string;
    await sim.ok('PUT', vm(302, '/config'), { scsi0: `${scsi0},cache=writeback` });
    expect((await pending(302)).map((r) => r.key)).toEqual(['scsi0']);
    await sim.ok('PUT', vm(302, '/config'), { revert: 'scsi0' });
    await sim.ok('PUT', vm(302, '/config'), { scsi0: `${scsi0},iops_rd=100` });
    expect((await current(302)).scsi0).toBe(`${scsi0.split(',')[0]},iops_rd=100,size=1G`);
    await sim.ok('PUT', vm(302, '/config'), { ide2: 'local:iso/debian-12.8.0-amd64-netinst.iso,media=cdrom' });
    expect((await current(302)).ide2).toBe('local:iso/debian-12.8.0-amd64-netinst.iso,media=cdrom');
    const media = await put(302, { ide2: 'local-lvm:1' });
    expect([media.status, media.body.errors]).toEqual([
      400,
      { ide2: 'hotplug problem - unable to change media type\n' },
    ]);
    // The CD-ROM given a medium joined the boot order (update_vm_api appends new CD drives to it), which waits.
    expect(await pending(302)).toEqual([
      { key: 'boot', value: 'order=scsi0', pending: 'order=scsi0;ide2' },
      {
        key: 'ide2',
        value: 'local:iso/debian-12.8.0-amd64-netinst.iso,media=cdrom',
        pending: 'local-lvm:vm-302-disk-3,size=1G',
      },
    ]);
  });

  it('vmconfig_hotplug_pending: only the options of this request are applied; what waited before waits on', async () => {
    await sim.createVm(303, { memory: '512', net0: 'virtio=BC:24:11:00:03:03,bridge=vmbr0' });
    await start(303);
    await sim.ok('PUT', vm(303, '/config'), { hotplug: 'network,disk,cpu' }); // cpu: not while running
    await sim.ok('PUT', vm(303, '/config'), { net0: 'virtio=BC:24:11:00:03:03,bridge=vmbr1' });
    expect((await current(303)).net0).toBe('virtio=BC:24:11:00:03:03,bridge=vmbr1');
    expect(await pending(303)).toEqual([{ key: 'hotplug', pending: 'network,disk,cpu' }]);
  });

  it('revert, delete and force: the pending markers (1, 2), reverts drop them, conflicts and unknown keys refused', async () => {
    await sim.createVm(304, { memory: '512', cores: '2', cpu: 'host', scsi0: 'local-lvm:1' });
    await start(304);
    await sim.ok('PUT', vm(304, '/config'), { delete: 'cores' });
    await sim.ok('PUT', vm(304, '/config'), { delete: 'cpu', force: '1' });
    await sim.ok('PUT', vm(304, '/config'), { memory: '1024' });
    expect(await pending(304)).toEqual([
      { key: 'cores', value: 2, delete: 1 },
      { key: 'cpu', value: 'host', delete: 2 },
      { key: 'memory', value: '512', pending: '1024' },
    ]);
    await sim.ok('PUT', vm(304, '/config'), { revert: 'cores,memory' });
    expect(await pending(304)).toEqual([{ key: 'cpu', value: 'host', delete: 2 }]);
    const refusals: Array<[Record<string, string>, Record<string, string>]> = [
      [
        { memory: '2048', delete: 'memory' },
        { delete: "you can't use '-memory' and -delete memory' at the same time" },
      ],
      [
        { memory: '2048', revert: 'memory' },
        { delete: "you can't use '-memory' and -revert memory' at the same time" },
      ],
      [
        { delete: 'memory', revert: 'memory' },
        { revert: "you can't use '-delete memory' and -revert memory' at the same time" },
      ],
      [{ revert: 'memroy' }, { revert: "unknown option 'memroy'" }],
      [{ delete: 'memroy' }, { delete: "unknown option 'memroy'" }],
    ];
    for (const [form, errors] of refusals) {
      const r = await put(304, form);
      expect([form, r.status, r.body.errors]).toEqual([form, 400, errors]);
    }
    const none = await fx.raw('PUT', `/api2/json${vm(304, '/config')}`, { form: { digest: 'x'.repeat(40) } });
    expect([none.status, none.body.message]).toEqual([500, 'no options specified\n']);
    const stale = await put(304, { memory: '1024', digest: 'a'.repeat(40) });
    expect([stale.status, stale.body.message]).toEqual([500, 'checksum mismatch (file change by other user?)\n']);
    const task = await sim.ok('POST', vm(304, '/config'), { delete: 'tablet' });
    expect(await sim.finish(task)).toBe('OK');
    expect(sim.log(task)).toContain("cannot delete 'tablet' - not set in current configuration!");
    // A stop applies what waited: the forced deletion of `cpu`.
    expect(await sim.task('POST', vm(304, '/status/stop'))).toBe('OK');
    expect((await current(304)).cpu).toBeUndefined();
    expect(await pending(304)).toEqual([]);
  });

  it('vm_stop_cleanup and vm_start apply what waited: a SATA disk and memory added while running, after a shutdown', async () => {
    await sim.createVm(305, { memory: '512', scsi0: 'local-lvm:1', boot: 'order=scsi0' });
    await fx.admin().setGuest(305, { guestAcpi: true }); // it shuts down and reboots: a guest with an OS
    await start(305);
    await sim.ok('PUT', vm(305, '/config'), { sata0: 'local-lvm:1', memory: '768' });
    expect((await pending(305)).map((r) => r.key)).toEqual(['memory', 'sata0']);
    expect(await sim.task('POST', vm(305, '/status/shutdown'))).toBe('OK');
    expect(await current(305)).toMatchObject({ memory: '768', sata0: 'local-lvm:vm-305-disk-1,size=1G' });
    expect(await pending(305)).toEqual([]);
    // Written while stopped: applied at once; pending again once running, and the start applies it.
    await start(305);
    await sim.ok('PUT', vm(305, '/config'), { cores: '2' });
    expect((await pending(305)).map((r) => r.key)).toEqual(['cores']);
    const reboot = await sim.ok('POST', vm(305, '/status/reboot'));
    expect(await sim.finish(reboot)).toBe('OK');
    expect((await current(305)).cores).toBe(2);
  });

  it('Memory.pm qemu_memory_hotplug: DIMMs plugged to the next boundary, unplugged newest first; its refusals left pending', async () => {
    await sim.createVm(306, {
      memory: '1024',
      numa: '1',
      sockets: '1',
      cores: '4',
      vcpus: '2',
      hotplug: 'network,disk,usb,memory,cpu',
    });
    await start(306);
    await sim.ok('PUT', vm(306, '/config'), { memory: '1700' });
    expect((await current(306)).memory).toBe('2048'); // dimm0 and dimm1, 512 MiB each
    expect(await pending(306)).toEqual([]);
    const low = await put(306, { memory: '512' });
    const line = flavour === '9.1' ? 236 : 232;
    expect([low.status, low.body.errors]).toEqual([
      400,
      {
        memory: `hotplug problem - memory can't be lower than 1024 MB at /usr/share/perl5/PVE/QemuServer/Memory.pm line ${line}.\n`,
      },
    ]);
    expect(await pending(306)).toEqual([{ key: 'memory', value: '2048', pending: '512' }]);
    const task = await sim.ok('POST', vm(306, '/config'), { memory: '1536' });
    expect(await sim.finish(task)).toBe('OK');
    expect(sim.log(task)).toContain('try to unplug memory dimm dimm1');
    expect((await current(306)).memory).toBe('1536');
    // qemu_cpu_hotplug: vCPUs up to sockets × cores, one by one; unset means all of them.
    await sim.ok('PUT', vm(306, '/config'), { vcpus: '4' });
    expect((await current(306)).vcpus).toBe(4);
    const five = await put(306, { vcpus: '5' });
    expect([five.status, five.body.errors]).toEqual([
      400,
      { vcpus: "hotplug problem - you can't add more vcpus than maxcpus\n" },
    ]);
    await sim.ok('PUT', vm(306, '/config'), { vcpus: '3' });
    expect((await current(306)).vcpus).toBe(3);
    await sim.ok('PUT', vm(306, '/config'), { delete: 'vcpus' });
    expect((await current(306)).vcpus).toBeUndefined();
    // With memory hotplug on, `hotplug` itself waits for a restart.
    await sim.ok('PUT', vm(306, '/config'), { hotplug: 'network,disk' });
    expect(await pending(306)).toEqual([
      { key: 'hotplug', value: 'network,disk,usb,memory,cpu', pending: 'network,disk' },
    ]);
  });

  it("Memory.pm config at start: memory hotplug needs NUMA, 1024 MiB and DIMM-aligned memory (the start task's error)", async () => {
    await sim.createVm(307, { memory: '2048', hotplug: 'memory' });
    const upid = await sim.ok('POST', vm(307, '/status/start'));
    expect(await sim.finish(upid)).toBe('NUMA needs to be enabled for memory hotplug');
    await sim.ok('PUT', vm(307, '/config'), { numa: '1', memory: '1500' });
    expect(await sim.finish(await sim.ok('POST', vm(307, '/status/start')))).toBe(
      'memory size (1500) must be aligned to 512 for hotplugging',
    );
    await sim.ok('PUT', vm(307, '/config'), { memory: '768' });
    expect(await sim.finish(await sim.ok('POST', vm(307, '/status/start')))).toBe('minimum memory must be 1024MB');
    await sim.ok('PUT', vm(307, '/config'), { memory: '1536' });
    await start(307);
  });

  it('resize_vm: a `resize` task; +size and absolute sizes, the same size a no-op, shrink and CD-ROM refused', async () => {
    await sim.createVm(308, { memory: '512', scsi0: 'local:1,format=qcow2', ide2: 'none,media=cdrom' });
    const resize = async (form: Record<string, string>) => {
      const upid = (await sim.ok('PUT', vm(308, '/resize'), form)) as string;
      expect(upid).toContain(':resize:308:');
      return { status: await sim.finish(upid), log: sim.log(upid) };
    };
    const size = async () => (await imageInfo(volumeFile((await current(308)).scsi0))).virtualSize;
    expect(await resize({ disk: 'scsi0', size: '+1G' })).toEqual({ status: 'OK', log: ['Image resized.', 'TASK OK'] });
    expect((await current(308)).scsi0).toBe('local:308/vm-308-disk-0.qcow2,size=2G');
    expect(await size()).toBe(2 * 1024 ** 3);
    expect((await resize({ disk: 'scsi0', size: '2560M' })).status).toBe('OK');
    expect([(await current(308)).scsi0, await size()]).toEqual([
      'local:308/vm-308-disk-0.qcow2,size=2560M',
      2560 * 1024 ** 2,
    ]);
    expect(await resize({ disk: 'scsi0', size: '2560M' })).toEqual({ status: 'OK', log: ['TASK OK'] });
    expect((await resize({ disk: 'scsi0', size: '1G' })).status).toBe('shrinking disks is not supported');
    expect((await resize({ disk: 'ide2', size: '+1G' })).status).toBe("you can't resize a cdrom");
    expect((await resize({ disk: 'scsi5', size: '+1G' })).status).toBe("disk 'scsi5' does not exist");
    expect((await resize({ disk: 'scsi0', size: '+1G', digest: 'b'.repeat(40) })).status).toBe(
      'checksum mismatch (file change by other user?)',
    );
    // A running VM on LVM-thin: lvextend's lines; the volume grows.
    await sim.ok('PUT', vm(308, '/config'), { scsi1: 'local-lvm:4' });
    await start(308);
    const grown = await resize({ disk: 'scsi1', size: '+1G' });
    expect(grown).toEqual({
      status: 'OK',
      log: [
        '  Size of logical volume pve/vm-308-disk-0 changed from 4.00 GiB (1024 extents) to 5.00 GiB (1280 extents).',
        '  Logical volume pve/vm-308-disk-0 successfully resized.',
        'TASK OK',
      ],
    });
    expect((await current(308)).scsi1).toBe('local-lvm:vm-308-disk-0,size=5G');
    expect((await imageInfo(volumeFile((await current(308)).scsi1))).virtualSize).toBe(5 * 1024 ** 3);
  });

  it('hotplug `cloudinit`: the NoCloud drive is made again at once (vmconfig_update_cloudinit_drive), else the change waits for it', async () => {
    await sim.createVm(310, { memory: '512', ide2: 'local-lvm:cloudinit', ciuser: 'ops' });
    await start(310);
    const ciuser = async () =>
      ((await sim.ok('GET', vm(310, '/cloudinit'))) as Array<{ key: string }>).find((i) => i.key === 'ciuser');
    await sim.ok('PUT', vm(310, '/config'), { ciuser: 'admin' });
    expect((await current(310)).ciuser).toBe('admin'); // a fast-plug option: in the config at once
    expect(await ciuser()).toEqual({ key: 'ciuser', value: 'ops', pending: 'admin' }); // the drive still says ops
    await sim.ok('PUT', vm(310, '/config'), { hotplug: 'network,disk,usb,cloudinit' });
    await sim.ok('PUT', vm(310, '/config'), { ciuser: 'root' });
    expect(await ciuser()).toEqual({ key: 'ciuser', value: 'root' });
  });

  it('the hotplug option is checked as pve-hotplug-features: an unknown feature is refused', async () => {
    await sim.createVm(309, { memory: '512' });
    const r = await put(309, { hotplug: 'disk,ram' });
    expect([r.status, r.body.errors]).toEqual([400, { hotplug: "invalid format - invalid hotplug feature 'ram'" }]);
  });
});

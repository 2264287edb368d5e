import { existsSync } from 'node:fs';
import { FLAVOURS, startSim, type SimFixture } from '../../helpers/proxmox';
import { simApi, type SimApi } from '../../helpers/sim-api';

/**
 * reset, reboot, suspend (pause, and to disk) and resume of simulated VMs, as qemu-server's vm_reset,
 * vm_reboot, vm_suspend and vm_resume: task types, qmpstatus `paused`, a reboot that applies pending
 * changes, the `suspended` lock and state volume that the next start consumes; PVE's refusals.
 */
describe.each(FLAVOURS)('power states, PVE %s', (flavour) => {
  let fx: SimFixture;
  let sim: SimApi;
  let next = 800;
  const status = (vmid: number) => sim.ok('GET', `/nodes/pve1/qemu/${vmid}/status/current`);
  const refused = async (path: string, form: Record<string, string> = {}) =>
    (await fx.raw('POST', `/api2/json/nodes/pve1/qemu${path}`, { form })).body.message;

  beforeAll(async () => {
    fx = await startSim(flavour);
    sim = simApi(fx);
  });
  afterAll(() => fx.stop());

  it('pause and resume; reset; a stopped VM refuses them', async () => {
    const vmid = next++;
    await sim.createVm(vmid, { memory: '256' });
    for (const cmd of ['reset', 'suspend', 'resume', 'reboot'])
      expect(await refused(`/${vmid}/status/${cmd}`)).toBe(`VM ${vmid} not running\n`);
    expect(await sim.task('POST', `/nodes/pve1/qemu/${vmid}/status/start`)).toBe('OK');
    const pause = await sim.ok('POST', `/nodes/pve1/qemu/${vmid}/status/suspend`);
    expect(pause).toContain(`:qmpause:${vmid}:`);
    expect(await sim.finish(pause)).toBe('OK');
    expect(await status(vmid)).toMatchObject({ status: 'running', qmpstatus: 'paused' });
    expect(
      (await sim.ok('GET', '/nodes/pve1/qemu?full=1')).find((r: { vmid: number }) => r.vmid === vmid).qmpstatus,
    ).toBe('paused');
    expect(await refused(`/${vmid}/status/reboot`)).toBe('VM is paused - cannot shutdown\n');
    expect(await refused(`/${vmid}/status/shutdown`)).toBe('VM is paused - cannot shutdown\n');
    const resume = await sim.ok('POST', `/nodes/pve1/qemu/${vmid}/status/resume`);
    expect(resume).toContain(`:qmresume:${vmid}:`);
    expect(await sim.finish(resume)).toBe('OK');
    expect(await status(vmid)).toMatchObject({ status: 'running', qmpstatus: 'running' });
    const reset = await sim.ok('POST', `/nodes/pve1/qemu/${vmid}/status/reset`);
    expect([reset, await sim.finish(reset)]).toEqual([expect.stringContaining(`:qmreset:${vmid}:`), 'OK']);
    const skiplock = await fx.raw('POST', `/api2/json/nodes/pve1/qemu/${vmid}/status/reset`, {
      form: { skiplock: '1' },
    });
    expect([skiplock.status, skiplock.body.errors]).toEqual([400, { skiplock: 'Only root may use this option.' }]);
  });

  it('reboot: a guest with an OS shuts down and starts again with its pending changes; one that ignores ACPI times out', async () => {
    const vmid = next++;
    await sim.createVm(vmid, { memory: '256', cores: '1' });
    await fx.admin().setGuest(vmid, { guestAcpi: true }); // stands for an installed OS that answers ACPI
    expect(await sim.task('POST', `/nodes/pve1/qemu/${vmid}/status/start`)).toBe('OK');
    await sim.ok('PUT', `/nodes/pve1/qemu/${vmid}/config`, { cores: '2' });
    expect(
      (await sim.ok('GET', `/nodes/pve1/qemu/${vmid}/pending`)).find((p: { key: string }) => p.key === 'cores'),
    ).toMatchObject({ value: 1, pending: 2 });
    const reboot = await sim.ok('POST', `/nodes/pve1/qemu/${vmid}/status/reboot`);
    expect([reboot, await sim.finish(reboot)]).toEqual([expect.stringContaining(`:qmreboot:${vmid}:`), 'OK']);
    expect((await sim.ok('GET', `/nodes/pve1/qemu/${vmid}/config?current=1`)).cores).toBe(2);
    expect((await status(vmid)).status).toBe('running');
    await fx.admin().setGuest(vmid, { guestAcpi: false });
    expect(await sim.task('POST', `/nodes/pve1/qemu/${vmid}/status/reboot`, { timeout: '0' })).toBe(
      'VM quit/powerdown failed - got timeout',
    );
    expect((await status(vmid)).status).toBe('running');
  });

  it('a VM with nothing to boot ignores ACPI, as on PVE: shutdown times out (the VM runs on), forceStop stops it', async () => {
    const vmid = next++;
    await sim.createVm(vmid, { memory: '256', scsi0: 'local-lvm:1' }); // an empty disk: nothing to boot
    expect(await sim.task('POST', `/nodes/pve1/qemu/${vmid}/status/start`)).toBe('OK');
    const started = Date.now();
    expect(await sim.task('POST', `/nodes/pve1/qemu/${vmid}/status/shutdown`, { timeout: '1' })).toBe(
      'VM quit/powerdown failed - got timeout',
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000); // it waited its timeout out
    expect((await status(vmid)).status).toBe('running');
    const rebooted = await sim.ok('POST', `/nodes/pve1/qemu/${vmid}/status/reboot`, { timeout: '1' });
    expect(await sim.finish(rebooted)).toBe('VM quit/powerdown failed - got timeout');
    const forced = await sim.ok('POST', `/nodes/pve1/qemu/${vmid}/status/shutdown`, { timeout: '1', forceStop: '1' });
    expect(await sim.finish(forced)).toBe('WARNINGS: 1');
    const log = fx.sim.cluster.tasks.get(forced)!.log;
    expect(log).toContain('WARN: VM still running - terminating now with SIGTERM');
    expect((await status(vmid)).status).toBe('stopped');
  });

  it('suspend to disk: lock `suspended`, a state volume, the VM stopped; start (or resume) consumes the state', async () => {
    for (const how of ['start', 'resume']) {
      const vmid = next++;
      await sim.createVm(vmid, { memory: '256', scsi0: 'local-lvm:1' });
      expect(await sim.task('POST', `/nodes/pve1/qemu/${vmid}/status/start`)).toBe('OK');
      const upid = await sim.ok('POST', `/nodes/pve1/qemu/${vmid}/status/suspend`, { todisk: '1' });
      expect([upid, await sim.finish(upid)]).toEqual([expect.stringContaining(`:qmsuspend:${vmid}:`), 'OK']);
      const config = await sim.ok('GET', `/nodes/pve1/qemu/${vmid}/config`);
      expect(config).toMatchObject({
        lock: 'suspended',
        vmstate: expect.stringMatching(new RegExp(`^local-lvm:vm-${vmid}-state-suspend-\\d{4}-\\d{2}-\\d{2}$`)),
        runningmachine: expect.any(String),
      });
      expect(await status(vmid)).toMatchObject({ status: 'stopped', lock: 'suspended' });
      const state = fx.sim.cluster.storages.resolve(config.vmstate, 'pve1').file;
      expect(existsSync(state)).toBe(true);
      const locked = await fx.raw('PUT', `/api2/json/nodes/pve1/qemu/${vmid}/config`, { form: { memory: '512' } });
      expect(locked.body.message).toBe('VM is locked (suspended)\n');
      expect(await sim.task('POST', `/nodes/pve1/qemu/${vmid}/status/${how}`)).toBe('OK');
      expect(await status(vmid)).toMatchObject({ status: 'running' });
      const after = await sim.ok('GET', `/nodes/pve1/qemu/${vmid}/config`);
      expect([after.lock, after.vmstate, after.runningmachine]).toEqual([undefined, undefined, undefined]);
      expect(existsSync(state)).toBe(false);
    }
  });
});

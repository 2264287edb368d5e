import { FerryError } from '../../../src/errors';
import { element, moRef } from '../../../src/vsphere/envelope';
import { retrieveProperties } from '../../../src/vsphere/property-collector';
import { GuestShutdownTimeout, VsphereFault, type OperationProgress, type VsphereClient } from '../../../src/vsphere';
import { ESTATE } from '../../../lab/vcsim/estate';
import { startTestVcsim, type TestVcsim } from '../../helpers/vcsim';

const RELOCATE_MS = 2000;
const SHUTDOWN_MS = 800;

describe('vSphere operations against vcsim (slow tasks via -method-delay)', () => {
  jest.setTimeout(60_000);
  let sim: TestVcsim;
  let client: VsphereClient;
  const moids: Record<string, string> = {};

  beforeAll(async () => {
    sim = await startTestVcsim({
      methodDelay: { RelocateVm: RELOCATE_MS, ShutdownGuest: SHUTDOWN_MS, LockHandoff: 0 },
    });
    client = sim.client();
    for (const vm of (await client.discover()).inventory.vms) moids[vm.name] = vm.moid;
  });

  afterAll(() => sim?.stop());

  async function taskInfo(task: string): Promise<Record<string, string>> {
    const [content] = await retrieveProperties(client.session, {
      propSet: [{ type: 'Task', pathSet: ['info'] }],
      objectSet: [{ obj: { type: 'Task', value: task } }],
    });
    const info = content!.props.get('info')!;
    return Object.fromEntries(info.children.filter((c) => c.children.length === 0).map((c) => [c.name, c.text]));
  }

  it('does nothing when the VM is already on the datastore', async () => {
    const before = client.stats.roundTrips;
    const result = await client.relocateVmStorage(moids['mig-snap01']!, ESTATE.migrationDatastore);
    expect(result).toMatchObject({ moved: false, datastore: { name: ESTATE.migrationDatastore } });
    expect(result.task).toBeUndefined();
    expect(client.stats.roundTrips - before).toBe(1); // one read, no RelocateVM_Task
  });

  it("moves a VM whose home is elsewhere, and then knows it is done (vCenter's datastore property)", async () => {
    const moved = await client.relocateVmStorage(moids['mig-web01']!, ESTATE.migrationDatastore);
    expect(moved.moved).toBe(true);
    expect((await client.readVm(moids['mig-web01']!)).datastores).toEqual([ESTATE.migrationDatastore]);
    const again = await client.relocateVmStorage(moids['mig-web01']!, ESTATE.migrationDatastore);
    expect(again).toMatchObject({ moved: false });
  });

  it("relocates, reporting progress on every poll (with vCenter's percent when there is one)", async () => {
    const progress: OperationProgress[] = [];
    const observer = sim.client();
    let nudged: Promise<unknown> | undefined;
    const result = await client.relocateVmStorage(moids['mig-legacy01']!, ESTATE.migrationDatastore, {
      pollIntervalMs: 150,
      onProgress: (p) => {
        progress.push(p);
        // vcsim never sets info.progress; set it as vCenter would, from another session.
        if (p.state === 'running' && !nudged) {
          nudged = observer.session.call('UpdateProgress', { type: 'Task', value: p.task! }, [
            element('percentDone', 40),
          ]);
        }
      },
    });
    await nudged;
    expect(result.moved).toBe(true);
    expect(result.task).toMatch(/^task-\d+$/);
    expect(result.durationMs).toBeGreaterThanOrEqual(RELOCATE_MS - 100);
    expect(progress.filter((p) => p.state === 'running').length).toBeGreaterThanOrEqual(3);
    expect(progress.at(-1)).toMatchObject({ step: 'relocate', state: 'success', task: result.task });
    expect(progress.some((p) => p.percent === 40)).toBe(true);
    expect(progress.every((p, i) => i === 0 || p.elapsedMs >= progress[i - 1]!.elapsedMs)).toBe(true);

    // vcsim moved only the VM's `datastore` property: the disk is still where it was, which is why the
    // lab's cutover must refuse this VM.
    const after = await client.readVmDetail(moids['mig-legacy01']!);
    expect(after.vm.disks[0]!.fileName).toBe('[LocalDS_0] mig-legacy01/mig-legacy01.vmdk');
  });

  it('honours cancellation: stops waiting at once and cancels the task in vCenter', async () => {
    const abort = new AbortController();
    const reason = new Error('activity cancelled');
    let task: string | undefined;
    const started = performance.now();
    const outcome = client
      .relocateVmStorage(moids['mig-legacy01']!, ESTATE.migrationDatastore, {
        pollIntervalMs: 100,
        signal: abort.signal,
        onProgress: (p) => {
          task = p.task;
          if (p.state === 'running') abort.abort(reason);
        },
      })
      .catch((e: unknown) => e);
    expect(await outcome).toBe(reason);
    expect(performance.now() - started).toBeLessThan(RELOCATE_MS);
    expect((await taskInfo(task!)).cancelled).toBe('true');

    // Cancelled before it starts: nothing is started in vCenter (one read, no RelocateVM_Task).
    const before = client.stats.roundTrips;
    const early = new AbortController();
    early.abort(reason);
    await expect(
      client.relocateVmStorage(moids['mig-legacy01']!, ESTATE.migrationDatastore, { signal: early.signal }),
    ).rejects.toBe(reason);
    expect(client.stats.roundTrips - before).toBe(1);
  });

  it('says the task id before it first polls, and a running storage vMotion is found on the VM (recentTask)', async () => {
    const moid = moids['mig-legacy01']!;
    const progress: OperationProgress[] = [];
    let found: Promise<unknown> | undefined;
    const observer = sim.client();
    const result = await client.relocateVmStorage(moid, ESTATE.migrationDatastore, {
      pollIntervalMs: 100,
      onProgress: (p) => {
        progress.push(p);
        found ??= observer.runningRelocations(moid);
      },
    });
    expect(progress[0]).toEqual({ step: 'relocate', state: 'queued', task: result.task, elapsedMs: 0 });
    // Read while the vMotion ran (vcsim holds it RELOCATE_MS): exactly that task, not the earlier ones
    // on this VM (ended, one of them cancelled).
    expect(await found).toEqual([
      expect.objectContaining({
        task: result.task,
        descriptionId: expect.stringMatching(/^VirtualMachine\.relocate/),
        state: expect.stringMatching(/^(queued|running)$/),
      }),
    ]);
    expect(await client.runningRelocations(moid)).toEqual([]);
  });

  it("refuses a datastore the VM's host does not mount, naming the ones it does", async () => {
    const err = await client.relocateVmStorage(moids['mig-web01']!, 'nfs-elsewhere').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FerryError);
    expect(err).toMatchObject({ category: 'not-found' });
    expect((err as Error).message).toBe(
      `datastore nfs-elsewhere is not mounted on DC0_C0_H0 of VM mig-web01 (${moids['mig-web01']}); mounted: LocalDS_0, nfs-migration`,
    );
  });

  it('leaves a powered-off VM alone when asked to shut it down', async () => {
    const before = client.stats.roundTrips;
    expect(await client.shutdownGuest(moids['mig-db01']!, { timeoutMs: 5000, force: false })).toMatchObject({
      outcome: 'already-off',
    });
    expect(client.stats.roundTrips - before).toBe(1);
  });

  it('shuts a guest down and waits for poweredOff', async () => {
    const progress: OperationProgress[] = [];
    const result = await client.shutdownGuest(moids['mig-snap01']!, {
      timeoutMs: 10_000,
      force: false,
      pollIntervalMs: 100,
      onProgress: (p) => progress.push(p),
    });
    expect(result.outcome).toBe('guest-shutdown');
    expect(progress.at(-1)).toMatchObject({ step: 'shutdown-guest', state: 'poweredOff' });
    expect(progress.filter((p) => p.state === 'poweredOn').length).toBeGreaterThanOrEqual(1);
    expect((await client.readVm(moids['mig-snap01']!)).powerState).toBe('poweredOff');
  });

  it('fails after the timeout unless the policy allows a forced power-off', async () => {
    const err = await client
      .shutdownGuest(moids['mig-indep01']!, { timeoutMs: 100, force: false, pollIntervalMs: 50 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GuestShutdownTimeout);
    expect(err).toMatchObject({ category: 'policy', retryable: false });
    expect((err as Error).message).toMatch(
      /did not shut down within 100 ms and the shutdown policy does not allow a forced power-off/,
    );

    const forced = await client.shutdownGuest(moids['mig-dmz01']!, { timeoutMs: 100, force: true, pollIntervalMs: 50 });
    expect(forced).toMatchObject({ outcome: 'powered-off', reason: 'the guest did not shut down within 100 ms' });
    expect((await client.readVm(moids['mig-dmz01']!)).powerState).toBe('poweredOff');
  });

  it('powers a VM on (rollback), once', async () => {
    expect(await client.powerOn(moids['mig-db01']!, { pollIntervalMs: 50 })).toEqual({ outcome: 'powered-on' });
    expect((await client.readVm(moids['mig-db01']!)).powerState).toBe('poweredOn');
    expect(await client.powerOn(moids['mig-db01']!)).toEqual({ outcome: 'already-on' });
  });

  it('surfaces faults with their type', async () => {
    const template = await client.powerOn(moids['mig-tmpl01']!, { pollIntervalMs: 50 }).catch((e: unknown) => e);
    expect(template).toBeInstanceOf(VsphereFault);
    expect(template).toMatchObject({ faultType: 'InvalidState', category: 'invalid' });
    expect((template as Error).message).toMatch(
      /^vSphere PowerOnVM_Task on VirtualMachine:vm-\d+ failed with InvalidState: cannot powerOn a template/,
    );

    const off = await client.session
      .call('ShutdownGuest', { type: 'VirtualMachine', value: moids['mig-rdm01']! })
      .catch((e: unknown) => e);
    expect(off).toMatchObject({ faultType: 'InvalidPowerState' });
    expect((off as Error).message).toMatch(/existingState=poweredOff/);

    const missing = await client.readVm('vm-999999').catch((e: unknown) => e);
    expect(missing).toMatchObject({ category: 'not-found', message: 'VM vm-999999 was not found in vCenter' });

    const { viewManager } = await client.session.serviceContent();
    const badContainer = await client.session
      .call('CreateContainerView', viewManager, [
        moRef('container', { type: 'Folder', value: 'group-nope' }),
        element('recursive', true),
      ])
      .catch((e: unknown) => e);
    expect(badContainer).toMatchObject({ faultType: 'ManagedObjectNotFound', category: 'not-found' });
  });
});

import type { ProxmoxClient } from '../../../src/proxmox';
import { FLAVOURS, startSim, type SimFixture } from '../../helpers/proxmox';

/**
 * The running tasks of one kind on one VM (`GET /nodes/{node}/tasks`, source=active, vmid, typefilter):
 * what a retried activity looks for when its worker died before it could say which task it started.
 */
describe.each(FLAVOURS)('active tasks, PVE %s', (flavour) => {
  let fx: SimFixture;
  let pve: ProxmoxClient;

  beforeAll(async () => {
    fx = await startSim(flavour);
    pve = fx.client();
  });
  afterAll(() => fx.stop());

  /** A simulator task that runs until `finish` is called. */
  function held(spec: { node: string; type: string; id: string }) {
    let finish!: () => void;
    const released = new Promise<void>((resolve) => (finish = resolve));
    const task = fx.sim.cluster.tasks.start({ ...spec, user: 'root@pam' }, () => released);
    return { upid: task.upid, finish, done: task.done };
  }

  it('lists only the running task of that type on that VM and node, and nothing once it ended', async () => {
    const ended = held({ node: 'pve1', type: 'qmconfig', id: '710' });
    ended.finish();
    await ended.done;
    const wanted = held({ node: 'pve1', type: 'qmconfig', id: '710' });
    const others = [
      held({ node: 'pve1', type: 'qmstart', id: '710' }),
      held({ node: 'pve1', type: 'qmconfig', id: '711' }),
      held({ node: 'pve2', type: 'qmconfig', id: '710' }),
    ];

    const active = await pve.tasks.active({ node: 'pve1', vmid: 710, type: 'qmconfig' });
    expect(active.map((t) => t.upid)).toEqual([wanted.upid]);
    expect(active[0]).toMatchObject({ type: 'qmconfig', id: '710' });
    expect(Math.abs(active[0]!.startedMs - Date.now())).toBeLessThan(60_000);

    wanted.finish();
    await wanted.done;
    expect(await pve.tasks.active({ node: 'pve1', vmid: 710, type: 'qmconfig' })).toEqual([]);
    for (const other of others) other.finish();
    await Promise.all(others.map((o) => o.done));
  });

  it('a task wait says the UPID to its caller before it asks anything (a heartbeat can carry it at once)', async () => {
    const task = held({ node: 'pve2', type: 'qmconfig', id: '730' });
    const progress: unknown[] = [];
    const waiting = pve.waitForTask(task.upid, { onProgress: (p) => progress.push(p) });
    // Synchronously, before the first status request has been sent.
    expect(progress).toEqual([{ upid: task.upid, type: 'qmconfig', elapsedMs: 0, running: true }]);
    task.finish();
    expect((await waiting).exitstatus).toBe('OK');
  });

  it("the simulator keeps PVE's sources apart: archive (the default) ended tasks, active running ones (RUNNING), all both", async () => {
    const ended = held({ node: 'pve1', type: 'qmstop', id: '720' });
    ended.finish();
    await ended.done;
    const running = held({ node: 'pve1', type: 'qmstop', id: '720' });
    const list = async (query: string) => {
      const answer = await fx.raw('GET', `/api2/json/nodes/pve1/tasks?vmid=720&typefilter=qmstop${query}`);
      expect(answer.status).toBe(200);
      return (answer.body.data as Array<{ upid: string; status?: string; endtime?: number }>).map((t) => [
        t.upid,
        t.status,
        t.endtime === undefined,
      ]);
    };
    expect(await list('')).toEqual([[ended.upid, 'OK', false]]);
    expect(await list('&source=archive')).toEqual([[ended.upid, 'OK', false]]);
    expect(await list('&source=active')).toEqual([[running.upid, 'RUNNING', true]]);
    expect((await list('&source=all')).map(([upid]) => upid).sort()).toEqual([ended.upid, running.upid].sort());
    // Validated by the schema like every route: an unknown source is refused.
    expect((await fx.raw('GET', '/api2/json/nodes/pve1/tasks?source=running')).status).toBe(400);
    running.finish();
    await running.done;
  });
});

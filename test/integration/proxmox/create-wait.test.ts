import type { TaskProgress } from '../../../src/proxmox';
import { startSim, type SimFixture } from '../../helpers/proxmox';

/**
 * A create retried while the first attempt's task still runs (its answer was lost, its worker died):
 * the retry waits for that task instead of creating again, and reports the wait as progress, so an
 * activity heartbeats through it.
 */
describe('vms.create finding a create still running', () => {
  let fixture: SimFixture;
  beforeAll(async () => {
    fixture = await startSim('9.1', { createTaskMs: 800 });
  });
  afterAll(() => fixture?.stop());

  it('waits for it, reporting progress, and adopts the VM', async () => {
    const pve = fixture.client();
    const spec = { node: 'pve1', vmid: 4100, name: 'slow01', cores: 1, memory: 512 };
    const first = pve.vms.create(spec);
    // The second call comes once the first one's create is in (a fixed pause is too short on a busy machine).
    const creates = () => fixture.sim.requests.filter((r) => r.method === 'POST' && r.path === '/nodes/pve1/qemu');
    while (creates().length === 0) await new Promise((r) => setTimeout(r, 10));
    const progress: TaskProgress[] = [];
    const second = await pve.vms.create(spec, { onProgress: (p) => progress.push(p), pollIntervalMs: 50 });
    expect(second).toEqual({ created: false, vmid: 4100, node: 'pve1' });
    expect(await first).toMatchObject({ created: true });
    expect(progress.length).toBeGreaterThan(3);
    expect(progress.every((p) => p.type === 'qmcreate' && p.running)).toBe(true);
    expect(progress.at(-1)!.elapsedMs).toBeGreaterThan(300);
    expect(creates()).toHaveLength(1);
  });
});

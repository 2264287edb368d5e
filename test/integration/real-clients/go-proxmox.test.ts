import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { toolPath } from '../../../lab/tools';
import { FLAVOURS, startSim, type SimFixture } from '../../helpers/proxmox';
import { runRealClient } from '../../helpers/real-client';

/**
 * github.com/luthermonson/go-proxmox v0.10.0 (from the Go module proxy, in ferry's program
 * test/real-clients/go) drives the simulator through a VM's lifecycle: it reads the node (its typed
 * CPUInfo broke on a numeric `hvm` before), creates, configures and resizes, starts, snapshots with RAM
 * and rolls back, full-clones onto shared storage, moves the clone's disk and then the clone to another
 * node, and destroys both. Every request must succeed and every task end OK; the simulator's own state
 * must agree with what the client read.
 */
describe.each(FLAVOURS)('go-proxmox against the simulator, PVE %s', (flavour) => {
  let fx: SimFixture;

  beforeAll(async () => {
    fx = await startSim(flavour);
  });
  afterAll(() => fx.stop());

  it('create → configure → start → snapshot → clone → move → destroy', async () => {
    const run = await runRealClient(fx, [toolPath('go-proxmox-lifecycle')], {
      PVE_NODE: 'pve1',
      PVE_TARGET_NODE: 'pve2',
      PVE_VMID: '7100',
    });
    expect([run.code, run.stderr]).toEqual([0, '']);
    expect(run.failedRequests).toEqual([]);
    expect(run.steps).toEqual([
      'node',
      'cluster',
      'create',
      'configure',
      'resize',
      'start',
      'snapshot',
      'stop',
      'rollback',
      'stop-again',
      'clone',
      'move-disk',
      'migrate',
      'snapshot-delete',
      'destroy',
      'destroy-clone',
    ]);
    expect(run.tasks).toEqual({
      qmcreate: ['OK'],
      qmconfig: ['OK'],
      resize: ['OK'],
      qmstart: ['OK'],
      qmsnapshot: ['OK'],
      qmstop: ['OK', 'OK'],
      qmrollback: ['OK'],
      qmclone: ['OK'],
      qmmove: ['OK'],
      qmigrate: ['OK'],
      qmdelsnapshot: ['OK'],
      qmdestroy: ['OK', 'OK'],
    });
    expect(run.summary).toMatchObject({
      version: { '8.4': '8.4.2', '9.1': '9.1.3' }[flavour],
      nodes: ['pve1', 'pve2', 'pve3'],
      nodeHvm: '1',
      nodeCpus: 16,
      nextId: 100,
      vmid: 7100,
      memory: '1024',
      running: true,
      snapshots: ['before', 'current'],
      snapshotVmstate: 1,
      cloneId: 7101,
      cloneName: 'rc-go-clone',
      cloneDisk: 'local:7101/vm-7101-disk-0.raw,size=2G',
      cloneNode: 'pve2',
      migrateAllowed: ['pve2', 'pve3'],
      destroyed: [7100, 7101],
      resourcesAfter: 0,
    });
    // Nothing of either VM is left on any storage.
    expect(fx.sim.cluster.vms.has(7100) || fx.sim.cluster.vms.has(7101)).toBe(false);
    const leftovers: string[] = [];
    for (const storage of fx.sim.cluster.storages.list()) {
      for (const node of fx.sim.cluster.nodes) {
        const dir = fx.sim.cluster.storages.folder(storage, node);
        for (const sub of [dir, path.join(dir, 'images', '7100'), path.join(dir, 'images', '7101')]) {
          if (existsSync(sub))
            leftovers.push(
              ...readdirSync(sub)
                .filter((f) => /710[01]/.test(f))
                .map((f) => `${storage.id}@${node}/${f}`),
            );
        }
      }
    }
    expect(leftovers).toEqual([]);
  });
});

import path from 'node:path';
import { toolPath } from '../../../lab/tools';
import { REPO_ROOT } from '../../../src/paths';
import { FLAVOURS, startSim, type SimFixture } from '../../helpers/proxmox';
import { runRealClient } from '../../helpers/real-client';

/**
 * proxmoxer 2.2.0 (from PyPI, the client Ansible's community.proxmox builds on) drives the simulator
 * through a VM's lifecycle with ferry's script test/real-clients/python: create, configure (PUT and
 * POST config, resize), start, snapshot of the running VM and rollback, a template and a linked clone of
 * it, the clone's disk moved to another storage, a pool by id, destroy. Every request must succeed and
 * every task end OK; the answers it read have PVE's JSON types.
 */
const SCRIPT = path.join(REPO_ROOT, 'test', 'real-clients', 'python', 'proxmoxer_lifecycle.py');

describe.each(FLAVOURS)('proxmoxer against the simulator, PVE %s', (flavour) => {
  let fx: SimFixture;

  beforeAll(async () => {
    fx = await startSim(flavour);
  });
  afterAll(() => fx.stop());

  it('create → configure → start → snapshot → template and linked clone → move → pool → destroy', async () => {
    const run = await runRealClient(fx, [toolPath('proxmoxer-python'), SCRIPT], { PVE_NODE: 'pve1', PVE_VMID: '7200' });
    expect([run.code, run.stderr]).toEqual([0, '']);
    expect(run.failedRequests).toEqual([]);
    expect(run.steps).toEqual([
      'create',
      'configure',
      'resize',
      'start',
      'snapshot',
      'rollback',
      'snapshot-delete',
      'template-create',
      'template',
      'clone',
      'move',
      'pool',
      'stop',
      'destroy-7200',
      'destroy-7202',
      'destroy-7201',
    ]);
    expect(run.tasks).toEqual({
      qmcreate: ['OK', 'OK'],
      qmconfig: ['OK'],
      resize: ['OK'],
      qmstart: ['OK'],
      qmsnapshot: ['OK'],
      qmrollback: ['OK'],
      qmdelsnapshot: ['OK'],
      qmtemplate: ['OK'],
      qmclone: ['OK'],
      qmmove: ['OK'],
      qmstop: ['OK'],
      qmdestroy: ['OK', 'OK', 'OK'],
    });
    expect(run.summary).toEqual({
      version: { '8.4': '8.4.2', '9.1': '9.1.3' }[flavour],
      nodes: ['pve1', 'pve2', 'pve3'],
      nextid: '100', // a JSON string, as PVE's
      nodeCpus: 16,
      nodeHvm: '1',
      // memory is a property string (a string), cores an integer, as qemu-server's check_type leaves them
      config: {
        memory: '1024',
        cores: 1,
        scsi0: 'local-lvm:vm-7200-disk-0,size=2G',
        scsi1: 'local-lvm:vm-7200-disk-1,size=1G',
        tags: 'real-client',
      },
      status: 'running',
      snapshots: { pre_change: null, current: 'pre_change' },
      // the rollback stopped the VM and took back the pending change of cores
      coresAfterRollback: 1,
      statusAfterRollback: 'stopped',
      feature: { hasFeature: 1, nodes: ['pve1'] },
      cloneDisk: 'local-lvm:vm-7202-disk-0,size=1G',
      movedDisk: 'local:7202/vm-7202-disk-0.qcow2,size=1G',
      poolMembers: [7200, 7202],
      left: [],
    });
    expect([...fx.sim.cluster.vms.keys()].filter((id) => id >= 7200 && id <= 7202)).toEqual([]);
    expect(fx.sim.cluster.pools.has('rcpool')).toBe(false);
  });
});

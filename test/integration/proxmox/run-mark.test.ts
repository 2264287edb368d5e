import { MockActivityEnvironment } from '@temporalio/testing';
import type { ActivityDeps } from '../../../activities/deps';
import { createProxmoxMigrationActivities } from '../../../activities/migration/proxmox';
import { createBareVmActivities } from '../../../activities/provisioning/proxmox-vm';
import type { FerryConfig } from '../../../src/config';
import type { BareVm } from '../../../src/domain/provisioning/hardware';
import { startSim, type SimFixture } from '../../helpers/proxmox';

/**
 * A create whose answer was lost, and whose write-intent heartbeat died with the worker before it reached
 * Temporal: the retry finds the VM, and the run's mark in its description says this run created it. Another
 * run (a rerun) finding the same VM says it was there already.
 */
describe("a VM's run mark", () => {
  let fixture: SimFixture;
  beforeAll(async () => {
    fixture = await startSim('9.1');
  });
  afterAll(() => fixture?.stop());

  const run = (runId: string, attempt = 1) =>
    new MockActivityEnvironment({ attempt, workflowExecution: { workflowId: 'migrate-vc-vm-42', runId } });
  const deps = (): ActivityDeps => ({ config: {} as FerryConfig, proxmox: fixture.client() });

  it('tells a retry of the same run its own create, and another run an existing VM (migration shell)', async () => {
    const { createVmShell } = createProxmoxMigrationActivities(deps());
    const spec = {
      node: 'pve1',
      vmid: 4200,
      name: 'web01',
      cores: 1,
      memory: 512,
      description: 'Migrated by ferry from vCenter vc, vm-42 ("web01").',
    };
    expect(await run('run-a').run(() => createVmShell({ spec }))).toEqual({ created: true });
    // The retry carries no heartbeat details: the first attempt's never reached the server.
    expect(await run('run-a', 2).run(() => createVmShell({ spec }))).toEqual({ created: true });
    expect(await run('run-b').run(() => createVmShell({ spec }))).toEqual({ created: false });
    const { description } = (await fixture.client().config.get('pve1', 4200)).values;
    expect(description).toBe(
      'Migrated by ferry from vCenter vc, vm-42 ("web01").\nferry: workflow migrate-vc-vm-42, run run-a',
    );
    expect(fixture.sim.requests.filter((r) => r.method === 'POST' && r.path === '/nodes/pve1/qemu')).toHaveLength(1);
  });

  it('does the same for a provisioned VM without a description of its own', async () => {
    const { createBareVm } = createBareVmActivities(deps());
    const vm: BareVm = {
      node: 'pve1',
      vmid: 4201,
      name: 'app01',
      machine: 'q35',
      bios: 'ovmf',
      efidisk: { storage: 'local-lvm', efitype: '4m', preEnrolledKeys: true },
      cores: 1,
      sockets: 1,
      memory: 512,
      ostype: 'l26',
      scsihw: 'virtio-scsi-single',
      agent: 'enabled=1',
      tags: ['ferry'],
    };
    expect(await run('run-c').run(() => createBareVm(vm))).toEqual({ created: true });
    expect(await run('run-c', 3).run(() => createBareVm(vm))).toEqual({ created: true });
    expect(await run('run-d').run(() => createBareVm(vm))).toEqual({ created: false });
    expect((await fixture.client().config.get('pve1', 4201)).values.description).toBe(
      'ferry: workflow migrate-vc-vm-42, run run-c',
    );
  });
});

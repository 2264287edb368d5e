import type { ActivityDeps } from '../../../activities';
import { guestImage } from '../../../lab/guest-image/paths';
import type { MigrationStatus } from '../../../src/domain/migration';
import type { migrationWave } from '../../../workflows/migration-wave';
import { labWorkers, useMigrationLab, type MigrationSuite } from '../../helpers/migration-lab';

/**
 * verify-guest against real guests: the lab VMs mig-app01 (BIOS), mig-app02 (EFI) and mig-ens01 carry
 * the lab's Debian guest; migrated with startAfter, the Proxmox simulator boots them under real QEMU
 * (TCG) with the real qemu-guest-agent, and the probe reaches the guest's service through the
 * simulator's loopback forward (see lab/guest-endpoints.ts).
 */
function withSettings(deps: ActivityDeps, cutover: Record<string, unknown>, verify: Record<string, unknown>): ActivityDeps {
  const migration = deps.config.migration!;
  return {
    ...deps,
    config: { ...deps.config, migration: { ...migration, cutover: { ...migration.cutover, ...cutover }, verify: { ...migration.verify, ...verify } } },
  };
}

async function migrateOne(suite: MigrationSuite, deps: ActivityDeps, name: string): Promise<MigrationStatus> {
  const workers = await labWorkers(suite.temporal.nativeConnection, deps);
  return workers.run(async () => {
    const wave = await suite.temporal.client.workflow.start<typeof migrationWave>('migrationWave', {
      taskQueue: workers.taskQueue,
      workflowId: `${workers.taskQueue}-wave`,
      args: [{ waveId: workers.taskQueue, selection: { names: [name] }, autoApprove: { by: 'alice', reason: `verify ${name}` } }],
    });
    const result = await wave.result();
    return (await suite.temporal.client.workflow.getHandle(result.status.vms[0]!.workflowId).result()) as MigrationStatus;
  });
}

describe('verify-guest with real guests', () => {
  jest.setTimeout(900_000);
  const suite = useMigrationLab({ migration: { heartbeatTimeout: '15s' } });
  const probe = () => ({ tcp: guestImage().manifest.probe.port });
  const verify = () => ({ agentTimeout: '5m', probeTimeout: '2m', pollInterval: '2s', probes: [probe()] });
  const node = () => suite.lab.deps.config.migration!.node;

  it('mig-app01 migrated with startAfter is verified: QEMU running, agent ping, its VMware MAC and address on the virtio NIC, the TCP probe', async () => {
    const deps = withSettings(suite.lab.deps, { startAfter: true }, verify());
    const result = await migrateOne(suite, deps, 'mig-app01');
    expect(result.outcome).toBe('migrated');
    const v = result.verification!;
    expect(v.state).toBe('verified');
    // The address came from discovery (VMware Tools' guest.net in vcsim); nothing in the config names it.
    expect(v.expectedAddress).toEqual({ address: '198.51.100.21', source: 'discovery' });
    expect(v.checks.map((c) => [c.check, c.result])).toEqual([
      ['qemu-running', 'passed'], ['agent-ping', 'passed'], ['macs', 'passed'], ['address', 'passed'], ['probe', 'passed'],
    ]);
    expect(v.checks.find((c) => c.check === 'address')!.detail).toMatch(/^198\.51\.100\.21 on \S+ \(00:50:56:01:00:01\)$/);
    expect(v.checks.find((c) => c.check === 'probe')!.detail).toMatch(/198\.51\.100\.21:\d+ via 127\.0\.0\.1:\d+ connected/);
    expect(v.bootToAgentSeconds).toBeGreaterThan(0);
    expect(v.downtimeSeconds).toBeGreaterThan(v.bootToAgentSeconds!);
    expect(result.waits.map((w) => w.for)).toEqual(expect.arrayContaining(['guest agent of mig-app01']));
    console.log(`mig-app01: boot-to-agent ${v.bootToAgentSeconds} s, downtime ${v.downtimeSeconds} s`);
    // The guest runs on Proxmox, its agent answering; VMware's VM stays off.
    expect((await suite.lab.deps.proxmox!.agent.runState(node(), result.vmid!)).qmpstatus).toBe('running');
    expect((await suite.lab.deps.vsphere!.discover()).inventory.vms.find((vm) => vm.name === 'mig-app01')!.powerState).toBe('poweredOff');
  });

  it('mig-ens01 (network config bound to ens192) fails verification with its interfaces shown, and onFailure rollback rolls back: Proxmox VM stopped, VMware on', async () => {
    const deps = withSettings(suite.lab.deps, { startAfter: true }, { ...verify(), onFailure: 'rollback', agentTimeout: '90s', probes: [] });
    const result = await migrateOne(suite, deps, 'mig-ens01');
    expect(result.outcome).toBe('rolled-back');
    const v = result.verification!;
    expect(v.state).toBe('failed');
    expect(v.checks.map((c) => [c.check, c.result])).toEqual([['qemu-running', 'passed'], ['agent-ping', 'passed'], ['macs', 'passed'], ['address', 'failed']]);
    // On a virtio NIC the guest names it ens18 (or the like), not ens192: the MAC is there, the address is not.
    const nic = v.interfaces!.find((i) => i.mac === '00:50:56:01:00:04')!;
    expect(nic.name).not.toBe('ens192');
    expect(nic.addresses.filter((a) => !a.startsWith('fe80:'))).toEqual([]);
    expect(result.error).toMatch(/mig-ens01 \(VM \d+\) is not verified: address: 198\.51\.100\.23 \(discovery\) is on no interface with a VMware MAC; the guest's interfaces: .*00:50:56:01:00:04/);
    expect(result.decisions).toEqual([expect.objectContaining({ decision: 'rollback', by: 'ferry', via: 'setting' })]);
    // Both sides: Proxmox's VM stopped and without the imported disk; VMware's VM on again (it was on).
    expect((await suite.lab.deps.proxmox!.power.status(node(), result.vmid!)).status).toBe('stopped');
    const config = (await suite.lab.deps.proxmox!.config.get(node(), result.vmid!)).values;
    expect(Object.keys(config).filter((k) => /^scsi\d+$/.test(k))).toEqual([]);
    expect(result.vmwarePowerState).toBe('poweredOn');
    expect((await suite.lab.deps.vsphere!.discover()).inventory.vms.find((vm) => vm.name === 'mig-ens01')!.powerState).toBe('poweredOn');
  });

  it('mig-app02 (EFI), powered off before the wave, not verified (wrong expected address) and rolled back: still off on VMware', async () => {
    const vsphere = suite.lab.deps.vsphere!;
    const moid = (await vsphere.discover()).inventory.vms.find((vm) => vm.name === 'mig-app02')!.moid;
    await vsphere.shutdownGuest(moid, { timeoutMs: 30_000, force: true });
    expect((await vsphere.readVm(moid)).powerState).toBe('poweredOff');
    const deps = withSettings(suite.lab.deps, { startAfter: true }, { ...verify(), onFailure: 'rollback', agentTimeout: '90s', probes: [], expect: { 'mig-app02': '198.51.100.99' } });
    const result = await migrateOne(suite, deps, 'mig-app02');
    expect(result.outcome).toBe('rolled-back');
    expect(result.vmwarePowerState).toBe('poweredOff');
    expect(result.verification!.expectedAddress).toEqual({ address: '198.51.100.99', source: 'config' });
    expect(result.verification!.checks.find((c) => c.check === 'agent-ping')!.result).toBe('passed');
    expect(result.actions.map((a) => a.kind)).not.toContain('shutdown-guest');
    expect((await vsphere.readVm(moid)).powerState).toBe('poweredOff');
    expect((await suite.lab.deps.proxmox!.power.status(node(), result.vmid!)).status).toBe('stopped');
  });
});

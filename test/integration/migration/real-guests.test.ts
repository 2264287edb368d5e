import { readFileSync } from 'node:fs';
import type { ActivityDeps } from '../../../activities';
import { guestImage } from '../../../lab/guest-image/paths';
import type { MigrationStatus } from '../../../src/domain/migration';
import type { migrationWave } from '../../../workflows/migration-wave';
import { labWorkers, useMigrationLab } from '../../helpers/migration-lab';
import { readWaveOutcome } from '../../../lab/wave-result';

/**
 * verify-guest against real guests: the lab VMs mig-app01 (BIOS), mig-app02 (EFI) and mig-ens01 carry
 * the lab's Debian guest; migrated with startAfter, the Proxmox simulator boots them under real QEMU
 * (TCG) with the real qemu-guest-agent, and the probe reaches the guest's service through the
 * simulator's loopback forward (see lab/guest-endpoints.ts).
 *
 * The three go as one wave, so their TCG boots overlap instead of adding up; each test below asserts
 * on its own VM. The lab e2e (test/e2e/lab.test.ts) migrates the same three through `ferry approve` and
 * asserts only the outcome and the figures there; the checks in detail, both sides of each rollback
 * and the powered-off VM are asserted here, where they are cheaper to read.
 */
const NAMES = ['mig-app01', 'mig-ens01', 'mig-app02'] as const;
type Name = (typeof NAMES)[number];

function withSettings(deps: ActivityDeps, cutover: Record<string, unknown>, verify: Record<string, unknown>): ActivityDeps {
  const migration = deps.config.migration!;
  return {
    ...deps,
    config: { ...deps.config, migration: { ...migration, cutover: { ...migration.cutover, ...cutover }, verify: { ...migration.verify, ...verify } } },
  };
}

describe('verify-guest with real guests', () => {
  jest.setTimeout(900_000);
  // importPerStorage 3: the three disks import at once.
  const suite = useMigrationLab({ migration: { heartbeatTimeout: '15s' }, limits: { importPerStorage: 3 } });
  const node = () => suite.lab.deps.config.migration!.node;
  let results: Promise<Record<Name, MigrationStatus>>;
  let app02Moid: string;

  beforeAll(async () => {
    // mig-app02 is powered off before the wave: rolled back, it must stay off.
    const vsphere = suite.lab.deps.vsphere!;
    app02Moid = (await vsphere.discover()).inventory.vms.find((vm) => vm.name === 'mig-app02')!.moid;
    await vsphere.shutdownGuest(app02Moid, { timeoutMs: 30_000, force: true });
    expect((await vsphere.readVm(app02Moid)).powerState).toBe('poweredOff');
    // One setting for all three: the probe only runs once the address check passed (mig-app01's), and
    // mig-app02 is told to expect an address its guest does not have, so it is not verified.
    const deps = withSettings(suite.lab.deps, { startAfter: true }, {
      // Generous: three TCG boots at once on a loaded 2-core machine took minutes (durable timers cost nothing).
      agentTimeout: '10m',
      probeTimeout: '3m',
      // The two failing VMs read their interfaces again until networkTimeout (default 1m) runs out; the
      // guest (image 5) sets its address a second or two after its agent starts, so 15 s judges the
      // same (with room for three TCG guests on a loaded machine) and saves the rest.
      networkTimeout: '15s',
      pollInterval: '500ms',
      probes: [{ tcp: guestImage().manifest.probe.port }],
      onFailure: 'rollback',
      expect: { 'mig-app02': '198.51.100.99' },
    });
    const workers = await labWorkers(suite.temporal.nativeConnection, deps);
    results = workers.run(async () => {
      const wave = await suite.temporal.client.workflow.start<typeof migrationWave>('migrationWave', {
        taskQueue: workers.taskQueue,
        workflowId: `${workers.taskQueue}-wave`,
        args: [{ waveId: workers.taskQueue, selection: { names: [...NAMES] }, autoApprove: { by: 'alice', reason: 'verify the real guests' } }],
      });
      const { status } = await readWaveOutcome(suite.temporal.client, wave);
      const byName = {} as Record<Name, MigrationStatus>;
      for (const name of NAMES) {
        const vm = status.vms.find((v) => v.name === name)!;
        byName[name] = (await suite.temporal.client.workflow.getHandle(vm.workflowId).result()) as MigrationStatus;
      }
      return byName;
    });
    results.catch(() => undefined); // each test awaits it; a failure shows there
  });

  it('mig-app01 migrated with startAfter is verified: QEMU running, agent ping, its VMware MAC and address on the virtio NIC, the TCP probe', async () => {
    const result = (await results)['mig-app01'];
    expect([result.outcome, result.error]).toEqual(['migrated', undefined]);
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
    console.log(`mig-app01: boot-to-agent ${v.bootToAgentSeconds} s, downtime ${v.downtimeSeconds} s (three guests booting at once, TCG)`);
    // The guest runs on Proxmox, its agent answering; VMware's VM stays off.
    expect((await suite.lab.deps.proxmox!.agent.runState(node(), result.vmid!)).qmpstatus).toBe('running');
    expect((await suite.lab.deps.vsphere!.discover()).inventory.vms.find((vm) => vm.name === 'mig-app01')!.powerState).toBe('poweredOff');
  });

  it('mig-ens01 (network config bound to ens192) fails verification with its interfaces shown, and onFailure rollback rolls back: Proxmox VM stopped, VMware on', async () => {
    const result = (await results)['mig-ens01'];
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
    // The guest's own log says why (this is the only boot of the image's ens192 variant).
    const serial = readFileSync((await suite.lab.admin.qemu(result.vmid!)).serialLog!, 'utf8');
    expect(serial).toContain('ferry-guest-config: NIC0 00:50:56:01:00:04: 198.51.100.23/24 via 198.51.100.1 on the interface with Name=ens192');
  });

  it('mig-app02 (EFI), powered off before the wave, not verified (wrong expected address) and rolled back: still off on VMware', async () => {
    const result = (await results)['mig-app02'];
    expect(result.outcome).toBe('rolled-back');
    expect(result.vmwarePowerState).toBe('poweredOff');
    expect(result.verification!.expectedAddress).toEqual({ address: '198.51.100.99', source: 'config' });
    expect(result.verification!.checks.find((c) => c.check === 'agent-ping')!.result).toBe('passed');
    expect(result.verification!.checks.map((c) => [c.check, c.result]).at(-1)).toEqual(['address', 'failed']);
    // Booted on OVMF through the simulator, the guest has each of its two addresses on the virtio NIC
    // that kept its VMware MAC (the only OVMF boot through the simulator).
    const addressesOf = (mac: string) => result.verification!.interfaces!.find((i) => i.mac === mac)?.addresses;
    expect(addressesOf('00:50:56:01:00:02')).toEqual(expect.arrayContaining(['198.51.100.22/24']));
    expect(addressesOf('00:50:56:01:00:03')).toEqual(expect.arrayContaining(['203.0.113.22/24']));
    expect(result.actions.map((a) => a.kind)).not.toContain('shutdown-guest');
    expect((await suite.lab.deps.vsphere!.readVm(app02Moid)).powerState).toBe('poweredOff');
    expect((await suite.lab.deps.proxmox!.power.status(node(), result.vmid!)).status).toBe('stopped');
  });
});

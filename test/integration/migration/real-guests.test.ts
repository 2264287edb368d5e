import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { ActivityDeps } from '../../../activities';
import { guestImage } from '../../../lab/guest-image/paths';
import { nfsMigrationDir } from '../../../lab/shared-paths';
import { guestAgentPackagesDir } from '../../../lab/vmware-guest/paths';
import { conversionSection } from '../../../src/config/conversion';
import type { MigrationStatus } from '../../../src/domain/migration';
import type { migrationWave } from '../../../workflows/migration-wave';
import { labWorkers, useMigrationLab } from '../../helpers/migration-lab';
import { readWaveOutcome } from '../../../lab/wave-result';
import { readProcesses, SCHED_IDLE, type ProcessEntry } from '../../../bench/lib/process-tree';

/**
 * verify-guest against real guests: the lab VMs mig-app01 (BIOS) and mig-app02 (EFI) carry the lab's
 * Debian guest, mig-ens01 (BIOS) the VMware-native one, converted at cutover (real virt-v2v-in-place
 * under TCG, on overlays of its VMDK); migrated with startAfter, the Proxmox simulator boots them under
 * real QEMU (TCG) with the real qemu-guest-agent, and the probe reaches the guest's service through the
 * simulator's loopback forward (see lab/guest-endpoints.ts).
 *
 * The three go as one wave, so their TCG boots overlap instead of adding up; each test below asserts
 * on its own VM. The lab e2e (test/e2e/lab.test.ts) migrates them (and mig-ens02, EFI) through `ferry
 * approve` and asserts the outcomes and figures there; the checks in detail, both sides of each rollback
 * and the powered-off VM are asserted here, where they are cheaper to read.
 */
const NAMES = ['mig-app01', 'mig-ens01', 'mig-app02'] as const;
type Name = (typeof NAMES)[number];

function withSettings(
  deps: ActivityDeps,
  cutover: Record<string, unknown>,
  verify: Record<string, unknown>,
  conversion: unknown,
): ActivityDeps {
  const migration = deps.config.migration!;
  return {
    ...deps,
    config: {
      ...deps.config,
      migration: {
        ...migration,
        cutover: { ...migration.cutover, ...cutover },
        verify: { ...migration.verify, ...verify },
        conversion: conversionSection.parse(conversion),
      },
    },
  };
}

/** sha256 of each file of a VM's VMware disk (descriptor and flat extent) on the NFS datastore. */
function vmdkChecksums(stateDir: string, vm: string): Record<string, string> {
  const dir = path.join(nfsMigrationDir(stateDir), vm);
  const files = [`${vm}.vmdk`, `${vm}-flat.vmdk`];
  return Object.fromEntries(
    files.map((f) => [f, execFileSync('sha256sum', [path.join(dir, f)], { encoding: 'utf8' }).split(' ')[0]!]),
  );
}

describe('verify-guest with real guests', () => {
  jest.setTimeout(900_000);
  // importPerStorage 3: the three disks import at once.
  const suite = useMigrationLab({ migration: { heartbeatTimeout: '15s' }, limits: { importPerStorage: 3 } });
  const node = () => suite.lab.deps.config.migration!.node;
  let results: Promise<Record<Name, MigrationStatus>>;
  let app02Moid: string;
  let ens01Before: Record<string, string>;
  /** Per virt-v2v-in-place process group seen during the wave: every process seen in it (its appliance). */
  const converterGroups = new Map<number, Map<number, ProcessEntry>>();
  let sampler: NodeJS.Timeout | undefined;

  /** The agent answered; when it did not, the guest's serial console says how far its boot got. */
  async function expectAgentAnswered(result: MigrationStatus): Promise<void> {
    const ping = result.verification!.checks.find((c) => c.check === 'agent-ping')!;
    if (ping.result === 'passed') return;
    const qemu = await suite.lab.admin.qemu(result.vmid!);
    const serial =
      qemu.serialLog && existsSync(qemu.serialLog)
        ? readFileSync(qemu.serialLog, 'utf8').split('\n').slice(-40).join('\n')
        : '(no serial log)';
    throw new Error(
      `VM ${result.vmid}: agent-ping ${ping.result} (${ping.detail ?? ''}); the guest's serial console ended:\n${serial}`,
    );
  }

  beforeAll(async () => {
    // mig-app02 is powered off before the wave: rolled back, it must stay off.
    const vsphere = suite.lab.deps.vsphere!;
    app02Moid = (await vsphere.discover()).inventory.vms.find((vm) => vm.name === 'mig-app02')!.moid;
    await vsphere.shutdownGuest(app02Moid, { timeoutMs: 30_000, force: true });
    expect((await vsphere.readVm(app02Moid)).powerState).toBe('poweredOff');
    ens01Before = vmdkChecksums(suite.lab.stateDir, 'mig-ens01');
    // One setting for all three: the probe only runs once the address check passed (mig-app01's), and
    // mig-app02 and mig-ens01 are told to expect an address their guests do not have, so they are not
    // verified: mig-ens01's rollback comes after its conversion.
    const conversion = {
      mode: 'off',
      overrides: { 'mig-ens01': 'linux' },
      agentPackages: guestAgentPackagesDir(),
      accel: 'tcg',
    };
    const deps = withSettings(
      suite.lab.deps,
      { startAfter: true },
      {
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
        expect: { 'mig-app02': '198.51.100.99', 'mig-ens01': '198.51.100.98' },
      },
      conversion,
    );
    const workers = await labWorkers(suite.temporal.nativeConnection, deps);
    sampler = setInterval(() => {
      const processes = readProcesses();
      for (const p of processes.values())
        if (p.comm.startsWith('virt-v2v-in-pl') && !converterGroups.has(p.pgrp)) converterGroups.set(p.pgrp, new Map());
      for (const [pid, p] of processes) converterGroups.get(p.pgrp)?.set(pid, p);
    }, 500);
    results = workers.run(async () => {
      const wave = await suite.temporal.client.workflow.start<typeof migrationWave>('migrationWave', {
        taskQueue: workers.taskQueue,
        workflowId: `${workers.taskQueue}-wave`,
        args: [
          {
            waveId: workers.taskQueue,
            selection: { names: [...NAMES] },
            autoApprove: { by: 'alice', reason: 'verify the real guests' },
          },
        ],
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
    void results.finally(() => clearInterval(sampler));
  });
  afterAll(() => clearInterval(sampler));

  it('mig-app01 migrated with startAfter is verified: QEMU running, agent ping, its VMware MAC and address on the virtio NIC, the TCP probe', async () => {
    const result = (await results)['mig-app01'];
    expect([result.outcome, result.error]).toEqual(['migrated', undefined]);
    const v = result.verification!;
    expect(v.state).toBe('verified');
    // The address came from discovery (VMware Tools' guest.net in vcsim); nothing in the config names it.
    expect(v.expectedAddress).toEqual({ address: '198.51.100.21', source: 'discovery' });
    expect(v.checks.map((c) => [c.check, c.result])).toEqual([
      ['qemu-running', 'passed'],
      ['agent-ping', 'passed'],
      ['macs', 'passed'],
      ['address', 'passed'],
      ['probe', 'passed'],
    ]);
    expect(v.checks.find((c) => c.check === 'address')!.detail).toMatch(
      /^198\.51\.100\.21 on \S+ \(00:50:56:01:00:01\)$/,
    );
    expect(v.checks.find((c) => c.check === 'probe')!.detail).toMatch(
      /198\.51\.100\.21:\d+ via 127\.0\.0\.1:\d+ connected/,
    );
    expect(v.bootToAgentSeconds).toBeGreaterThan(0);
    expect(v.downtimeSeconds).toBeGreaterThan(v.bootToAgentSeconds!);
    expect(result.waits.map((w) => w.for)).toEqual(expect.arrayContaining(['guest agent of mig-app01']));
    console.log(
      `mig-app01: boot-to-agent ${v.bootToAgentSeconds} s, downtime ${v.downtimeSeconds} s (three guests booting at once, TCG)`,
    );
    // The guest runs on Proxmox, its agent answering; VMware's VM stays off.
    expect((await suite.lab.deps.proxmox!.agent.runState(node(), result.vmid!)).qmpstatus).toBe('running');
    expect(
      (await suite.lab.deps.vsphere!.discover()).inventory.vms.find((vm) => vm.name === 'mig-app01')!.powerState,
    ).toBe('poweredOff');
  });

  it('mig-ens01 (VMware-native) is converted, comes up as itself on Proxmox, and a rollback leaves its VMDK byte for byte as it was', async () => {
    const result = (await results)['mig-ens01'];
    // Converted at cutover, in the history: what conversion found and did, with its time.
    const conversion = result.conversion!;
    expect(conversion.result).toMatchObject({ converted: true, alreadyConverted: false, accel: 'tcg' });
    expect(conversion.result!.plan).toMatchObject({ convert: true, family: 'linux', inspected: true });
    const plan = conversion.result!.plan as Extract<typeof conversion.plan, { convert: true }>;
    expect(plan.steps.map((s) => s.kind)).toEqual(['overlay', 'pin-nic', 'install-agent', 'virt-v2v']);
    expect(plan.steps).toContainEqual({
      kind: 'pin-nic',
      pin: { slot: 'net0', mac: '00:50:56:01:00:04', name: 'ens192', pveName: 'ens18', basis: 'order' },
    });
    expect(plan.steps).toContainEqual(expect.objectContaining({ kind: 'virt-v2v', removes: ['open-vm-tools'] }));
    expect(conversion.result!.steps.map((s) => s.step)).toEqual(['overlays', 'inspect-and-edit', 'virt-v2v']);
    // virt-v2v and everything it started (the appliance's QEMU) ran at low priority, in a process group
    // of its own but in the worker's session, where SCHED_IDLE yields to the worker (atPriority).
    const ownSession = readProcesses().get(process.pid)!.session;
    expect(converterGroups.size).toBeGreaterThan(0);
    for (const group of converterGroups.values()) {
      const seen = [...group.values()];
      expect(seen.map((p) => p.comm)).toEqual(expect.arrayContaining([expect.stringMatching(/^qemu-system/)]));
      for (const p of seen) expect([p.comm, p.policy, p.nice, p.session]).toEqual([p.comm, SCHED_IDLE, 19, ownSession]);
    }
    expect(result.actions.map((a) => a.kind)).toEqual(
      expect.arrayContaining(['shutdown-guest', 'convert-guest', 'import-disk']),
    );
    expect(result.timings.map((t) => t.stage)).toEqual(expect.arrayContaining(['inspect', 'convert', 'import']));
    // The guest came up as itself: its agent answers, its NIC keeps the VMware name with its address
    // (it was told to expect another, so it is not verified: ferry rolls it back by itself).
    const v = result.verification!;
    expect(v.checks.map((c) => [c.check, c.result])).toEqual([
      ['qemu-running', 'passed'],
      ['agent-ping', 'passed'],
      ['macs', 'passed'],
      ['address', 'failed'],
    ]);
    expect(v.interfaces!.find((i) => i.mac === '00:50:56:01:00:04')).toMatchObject({
      name: 'ens192',
      addresses: expect.arrayContaining(['198.51.100.23/24']),
    });
    console.log(
      `mig-ens01: conversion ${conversion.result!.seconds.toFixed(1)} s (${conversion.result!.steps.map((s) => `${s.step} ${s.seconds.toFixed(1)} s`).join(', ')})`,
    );
    // Rolled back: Proxmox's VM stopped, without its disk; VMware's VM on again; its VMDK untouched; the overlays gone.
    expect(result.outcome).toBe('rolled-back');
    expect(result.decisions).toEqual([expect.objectContaining({ decision: 'rollback', by: 'ferry', via: 'setting' })]);
    expect((await suite.lab.deps.proxmox!.power.status(node(), result.vmid!)).status).toBe('stopped');
    const config = (await suite.lab.deps.proxmox!.config.get(node(), result.vmid!)).values;
    expect(Object.keys(config).filter((k) => /^scsi\d+$/.test(k))).toEqual([]);
    expect(
      (await suite.lab.deps.vsphere!.discover()).inventory.vms.find((vm) => vm.name === 'mig-ens01')!.powerState,
    ).toBe('poweredOn');
    expect(vmdkChecksums(suite.lab.stateDir, 'mig-ens01')).toEqual(ens01Before);
    expect(result.overlays?.removed).toEqual([`images/${result.vmid}/vm-${result.vmid}-disk-0.qcow2`]);
    expect(existsSync(path.join(nfsMigrationDir(suite.lab.stateDir), 'images', String(result.vmid)))).toBe(false);
  });

  it('mig-app02 (EFI), powered off before the wave, not verified (wrong expected address) and rolled back: still off on VMware', async () => {
    const result = (await results)['mig-app02'];
    expect(result.outcome).toBe('rolled-back');
    expect(result.vmwarePowerState).toBe('poweredOff');
    expect(result.verification!.expectedAddress).toEqual({ address: '198.51.100.99', source: 'config' });
    await expectAgentAnswered(result);
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

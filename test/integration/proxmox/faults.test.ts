import type { ProxmoxClient } from '../../../src/proxmox';
import { FLAVOURS, retrying, startSim, type SimFixture } from '../../helpers/proxmox';

/**
 * Faults injected (seeded) while a whole provisioning-like sequence runs: 5xx answers, connections
 * dropped before and after the work, "VM is locked", failing tasks, latency. Each operation is retried
 * as an activity would be; the end state must be exactly the intended one — one VM, one NIC, the disks
 * asked for, nothing duplicated or lost.
 */
// Which requests get which fault follows the seed, but the request sequence itself varies a little with
// timing (how many task polls); six VMs make every fault kind near-certain to occur (< 0.1 % to miss one).
const FAULTS = {
  seed: 20260130,
  latencyMs: { min: 0, max: 10 },
  errorRate: 0.07,
  dropRate: 0.08,
  lockRate: 0.1,
  taskFailureRate: 0.12,
};
const VMS = [4242, 4252, 4262, 4272, 4282, 4292].map((vmid, i) => ({
  vmid,
  node: `pve${(i % 3) + 1}`,
  name: `app0${i + 1}`,
}));

/** `rerun`: skip the one-off steps (make scsi1, move it, detach it), which are actions, not a state to converge to. */
async function sequence(pve: ProxmoxClient, stats: { attempts: number; retries: number }, rerun = false) {
  const r = <T>(fn: () => Promise<T>) => retrying(fn, stats);
  await r(() =>
    pve.sdn.ensure(
      { zones: [{ zone: 'prod', type: 'vlan', bridge: 'vmbr0' }], vnets: [{ vnet: 'v20', zone: 'prod', tag: 20 }] },
      { heldLock: 'take-over' },
    ),
  );
  await r(() => pve.acl.ensure({ path: '/sdn/zones/prod/v20', roles: ['PVESDNUser'], users: ['ferry@pve'] }));
  for (const { vmid, node, name } of VMS) {
    await r(() =>
      pve.vms.create({
        node,
        vmid,
        name,
        bios: 'ovmf',
        machine: 'q35',
        efidisk: { storage: 'local-lvm' },
        cores: 2,
        memory: 2048,
        scsihw: 'virtio-scsi-single',
      }),
    );
    await r(() => pve.config.ensure(node, vmid, { cores: 4, onboot: true, description: 'migrated by ferry' }));
    await r(() => pve.nics.set(node, vmid, 0, { bridge: 'v20', firewall: true }));
    await r(() =>
      pve.disks.ensure(node, vmid, 'scsi0', { storage: 'local-lvm', sizeGiB: 1, options: { iothread: true } }),
    );
    await r(() => pve.disks.resize(node, vmid, 'scsi0', '2G'));
    if (!rerun) {
      await r(() => pve.disks.ensure(node, vmid, 'scsi1', { storage: 'local', sizeGiB: 1, format: 'qcow2' }));
      await r(() => pve.disks.move(node, vmid, 'scsi1', { storage: 'nfs-migration', deleteSource: true }));
      await r(() => pve.disks.detach(node, vmid, 'scsi1'));
    }
    await r(() => pve.power.start(node, vmid));
    await r(() => pve.power.shutdown(node, vmid, { timeoutS: 5, forceStop: true }));
  }
  await r(() => pve.vms.create({ node: 'pve3', vmid: 4243, name: 'scratch' }));
  await r(() => pve.vms.delete('pve3', 4243, { purge: true, destroyUnreferencedDisks: true }));
}

describe.each(FLAVOURS)('fault injection during a sequence of operations, PVE %s', (flavour) => {
  jest.setTimeout(120_000);
  let fx: SimFixture;
  beforeAll(async () => {
    // The sequence shuts its VM down gracefully: it stands for a guest with an OS, which answers ACPI.
    fx = await startSim(flavour, { simulatedGuestsAnswerAcpi: true });
  });
  afterAll(() => fx.stop());

  it('ends in exactly the intended state', async () => {
    const pve = fx.client({ taskPollIntervalMs: 10 });
    fx.sim.faults.set(FAULTS);
    const stats = { attempts: 0, retries: 0 };
    await sequence(pve, stats);
    fx.sim.faults.set(undefined);
    await fx.sim.cluster.tasks.idle();

    // The faults really happened, of every kind, and were survived by retrying.
    const injected = new Set(fx.sim.requests.map((r) => r.fault).filter(Boolean));
    expect([...injected].sort()).toEqual(['drop-after', 'drop-before', 'error', 'locked']);
    expect(fx.sim.cluster.tasks.history.some((t) => t.exitstatus?.includes('fault injected'))).toBe(true);
    expect(stats.retries).toBeGreaterThan(5);

    // Exactly the VMs asked for, each exactly as intended; the scratch VM is gone.
    expect([...fx.sim.cluster.vms.keys()].sort()).toEqual(VMS.map((v) => v.vmid));
    const expectedImages: string[] = [];
    for (const { vmid, node, name } of VMS) {
      const vm = fx.sim.cluster.vms.get(vmid)!;
      expect([vm.node, vm.status, vm.pending]).toEqual([node, 'stopped', {}]);
      const { smbios1: _s, vmgenid: _g, meta: _m, net0, ...config } = vm.config;
      expect(net0).toMatch(/^virtio=BC:24:11(:[0-9A-F]{2}){3},bridge=v20,firewall=1$/);
      expect(config).toEqual({
        name,
        bios: 'ovmf',
        machine: 'q35',
        cores: '4',
        memory: '2048',
        scsihw: 'virtio-scsi-single',
        onboot: '1',
        description: 'migrated by ferry',
        efidisk0: `local-lvm:vm-${vmid}-disk-0,efitype=4m,pre-enrolled-keys=0,size=528K`,
        scsi0: `local-lvm:vm-${vmid}-disk-1,iothread=1,size=2G`,
        unused0: `nfs-migration:${vmid}/vm-${vmid}-disk-0.qcow2`,
      });
      expectedImages.push(`${node}/local-lvm:vm-${vmid}-disk-0`, `${node}/local-lvm:vm-${vmid}-disk-1`);
      for (const n of ['pve1', 'pve2', 'pve3'])
        expectedImages.push(`${n}/nfs-migration:${vmid}/vm-${vmid}-disk-0.qcow2`); // shared storage
    }

    // Storage holds exactly these volumes: no orphan from a repeated allocation, move or create.
    const images: string[] = [];
    for (const storage of ['local', 'local-lvm', 'nfs-migration']) {
      for (const node of ['pve1', 'pve2', 'pve3'])
        images.push(
          ...(await pve.storage.content(node, storage, { content: 'images' })).map((i) => `${node}/${i.volid}`),
        );
    }
    expect(images.sort()).toEqual(expectedImages.sort());

    // SDN applied once, nothing pending, lock free; one ACL entry.
    expect(fx.sim.cluster.sdnRunning).toEqual({
      zones: { prod: { type: 'vlan', bridge: 'vmbr0' } },
      vnets: { v20: { zone: 'prod', tag: '20' } },
    });
    expect(fx.sim.cluster.sdn).toEqual(fx.sim.cluster.sdnRunning);
    expect(fx.sim.cluster.sdnLockToken).toBeUndefined();
    // Beside the sample cluster's own ACL on `/` (its users' roles), exactly the one entry written.
    expect(fx.sim.cluster.acl.filter((e) => e.path !== '/')).toEqual([
      { path: '/sdn/zones/prod/v20', type: 'user', ugid: 'ferry@pve', roleid: 'PVESDNUser', propagate: 1 },
    ]);

    // Running the sequence again, without faults, changes nothing: no API write at all except the
    // start/shutdown pairs and the scratch VM (the sequence changes those on purpose).
    const mark = fx.sim.requests.length;
    await sequence(pve, { attempts: 0, retries: 0 }, true);
    const writes = fx.sim.requests
      .slice(mark)
      .filter((r) => r.method !== 'GET')
      .map((r) => `${r.method} ${r.path}`);
    expect(writes).toEqual([
      ...VMS.flatMap(({ vmid, node }) => [
        `POST /nodes/${node}/qemu/${vmid}/status/start`,
        `POST /nodes/${node}/qemu/${vmid}/status/shutdown`,
      ]),
      'POST /nodes/pve3/qemu',
      'DELETE /nodes/pve3/qemu/4243',
    ]);
  });

  it('is deterministic: the same seed injects the same faults into the same request sequence', async () => {
    const decisions = (seed: number) => {
      fx.sim.faults.set({ ...FAULTS, seed });
      const out = Array.from({ length: 200 }, (_, i) =>
        fx.sim.faults.decide(i % 3 ? 'GET' : 'PUT', `/nodes/pve1/qemu/100/config`),
      );
      fx.sim.faults.set(undefined);
      return out;
    };
    expect(decisions(7)).toEqual(decisions(7));
    expect(decisions(7)).not.toEqual(decisions(8));
  });
});

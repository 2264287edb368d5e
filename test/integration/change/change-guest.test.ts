import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { guestImage } from '../../../lab/guest-image/paths';
import type { ChangeResult } from '../../../src/domain/change-vm';
import { approveChangeUpdate, changeStatusQuery } from '../../../src/domain/messages';
import { provisionWorkflowId, type ProvisionResult } from '../../../src/domain/provisioning';
import type { changeVm } from '../../../workflows/change-vm';
import type { provisionVm } from '../../../workflows/provision-vm';
import { useProvisionLab } from '../../helpers/provision-lab';
import { until } from '../../helpers/wait';

const MiB = 1024 * 1024;

/**
 * Day 2 on a real guest (the lab image under TCG, its real QEMU guest agent): NetBox's edit of a running
 * VM is seen inside the guest — memory hot-added (DIMMs onlined by the guest), the disk grown
 * (block_resize), the NIC moved to another VLAN with its MAC kept and the NetBox address still on it —
 * and a vCPU change waits, pending in Proxmox, until an approval restarts the guest.
 */
describe('changeVm on a real guest: what NetBox says, the guest shows', () => {
  jest.setTimeout(600_000);
  const suite = useProvisionLab('chgguest', {
    provisioning: {
      guestNetworkTimeout: '30s',
      // OVMF with enrolled keys refuses the lab image's unsigned systemd-boot.
      secureBoot: false,
      extras: { rng0: 'source=/dev/urandom', numa: '1', hotplug: 'network,disk,memory,usb' },
    },
    change: { debounce: '500ms', restart: { shutdownTimeout: '2m' } },
  });

  it('memory, disk and VLAN live and seen in the guest; vCPUs held, then applied by the approved restart', async () => {
    const importDir = path.join(suite.lab.stateDir, 'proxmox', 'storage', 'local', 'pve1', 'import');
    mkdirSync(importDir, { recursive: true });
    execFileSync('cp', ['--sparse=always', guestImage().raw('mac'), path.join(importDir, 'ferry-guest.raw')]);
    const { id } = await suite.lab.plannedVm({
      vcpus: 1,
      memory: 1024,
      disk: 1024,
      fields: { ferry_image: 'local:import/ferry-guest.raw', ferry_vlan: 20, ferry_iso: null },
    });
    const built: ProvisionResult = await suite.temporal.client.workflow.execute<typeof provisionVm>('provisionVm', {
      taskQueue: suite.workers.taskQueue,
      workflowId: `${suite.workers.taskQueue}-${provisionWorkflowId({ netboxId: id })}`,
      args: [{ netboxId: id, start: true }],
    });
    expect(built.verification?.state).toBe('verified');
    const vmid = built.vmid!;
    const mac = built.macs.net0!;
    const address = built.address!;

    await suite.lab.nb.updateVirtualMachine(id, {
      memory: 1536,
      vcpus: 2,
      disk: 2048,
      custom_fields: { ferry_vlan: 30 },
    });
    const handle = await suite.temporal.client.workflow.start<typeof changeVm>('changeVm', {
      taskQueue: suite.workers.taskQueue,
      workflowId: `${suite.workers.taskQueue}-change-${vmid}`,
      args: [{ netboxId: id, vmid, trigger: { source: 'ferry-apply', at: new Date().toISOString() } }],
    });
    const waiting = await until(
      'changeVm at its approval gate',
      async () => {
        const status = await handle.query(changeStatusQuery);
        if (status.stage === 'failed' || status.stage === 'done') throw new Error(JSON.stringify(status));
        return status.stage === 'awaiting-approval' ? status : undefined;
      },
      300_000,
    );
    // Each live change was seen in the guest: the outcome's detail says what the guest showed.
    const outcomes = Object.fromEntries(waiting.outcomes.map(({ id, ...o }) => [id, o]));
    expect(outcomes).toEqual({
      memory: { outcome: 'applied-live', detail: expect.stringMatching(/; the guest sees \d+ MiB$/) },
      vcpus: { outcome: 'held', detail: expect.any(String) },
      'scsi0.size': { outcome: 'applied-live', detail: expect.stringMatching(/; the guest sees scsi0 as 2G$/) },
      'net0.tag': {
        outcome: 'applied-live',
        detail: expect.stringContaining(
          `the guest has net0's MAC ${mac.toUpperCase()} with NetBox's address ${address}`,
        ),
      },
    });
    expect(waiting.guestUnread).toBeUndefined();

    // The guest's own view, read here through the agent too: memory online, the disk's size, the MAC and address.
    const pve = suite.lab.deps.proxmox!;
    const meminfo = await pve.agent.exec('pve1', vmid, ['cat', '/proc/meminfo']);
    const memTotalKiB = Number(/MemTotal:\s+(\d+)/.exec(meminfo.stdout)?.[1]);
    expect(memTotalKiB * 1024).toBeGreaterThan(1024 * MiB);
    const size = await pve.agent.exec('pve1', vmid, ['cat', '/sys/block/sda/size']);
    expect(Number(size.stdout.trim()) * 512).toBe(2048 * MiB);
    const interfaces = await pve.agent.networkInterfaces('pve1', vmid);
    const nic = interfaces.find((i) => i.mac?.toLowerCase() === mac.toLowerCase());
    expect(nic?.addresses.map((a) => `${a.address}/${a.prefix}`)).toContain(address);
    const current = (await pve.config.get('pve1', vmid, { current: true })).values;
    expect(current.net0).toContain(mac);
    expect(current.net0).toMatch(/tag=30/);
    // The vCPU change is held by ferry until approved: not even written to Proxmox's pending list.
    expect(current.cores).toBe('1');
    expect((await pve.config.pendingRows('pve1', vmid)).filter((r) => r.pending !== undefined)).toEqual([]);

    await handle.executeUpdate(approveChangeUpdate, {
      args: [{ by: 'alice', reason: 'restart for the vCPUs', restart: true }],
    });
    const result: ChangeResult = await handle.result();
    expect(result.outcome).toBe('applied');
    expect(result.restarted).toBe(true);
    expect(result.outcomes.find((o) => o.id === 'vcpus')).toMatchObject({ outcome: 'applied-after-restart' });
    const cpus = await pve.agent.exec('pve1', vmid, ['nproc']);
    expect(cpus.stdout.trim()).toBe('2');
  });
});

import { randomInt } from 'node:crypto';
import { ScheduleNotFoundError } from '@temporalio/client';
import type { DriftReport } from '../../../src/domain/change';
import { LAB_NETBOX } from '../../../lab/netbox-seed';
import { apiWrites } from '../../../lab/proxmox-sim/admin-client';
import { ferryOn, provisionedVm, useProvisionLab } from '../../helpers/provision-lab';

/**
 * `ferry drift` as a person runs it, against the Proxmox simulator, a real NetBox and a real Temporal:
 * a NetBox edit and a hand change in Proxmox each reported in its direction, an unchanged VM not, and
 * nothing written on either side; `--schedule daily` as a Temporal Schedule created, updated in place,
 * left alone by a rerun, run, and deleted.
 */
describe('ferry drift: both directions, nothing written; the daily schedule', () => {
  jest.setTimeout(600_000);
  // VMIDs of their own: `change-<vmid>` lives on the run's shared dev server.
  const vmidMin = 100_000 + randomInt(0, 800_000_000);
  const suite = useProvisionLab('drift', { provisioning: { vmidRange: { min: vmidMin, max: vmidMin + 99 } } });
  const cluster = LAB_NETBOX.cluster;
  let tag: string;

  const ferry = ferryOn(suite);
  const provisioned = () => provisionedVm(suite, { tags: [tag] }, { start: false });

  /** Counts the worker's NetBox requests from here on; `stop` ends it and returns them (method and path). */
  function netboxRequests(): { stop: () => string[] } {
    const http = suite.lab.deps.netbox!.http as unknown as { send: (method: string, url: URL) => Promise<unknown> };
    const spy = jest.spyOn(http, 'send');
    return {
      stop() {
        const seen = spy.mock.calls.map(([method, url]) => `${method} ${url.pathname}`);
        spy.mockRestore();
        return seen;
      },
    };
  }

  beforeAll(async () => {
    tag = await suite.lab.tag(`drift-${randomInt(1e9)}`);
  });

  it('refuses what cannot be meant with a usage error (exit 2)', async () => {
    const runs = await Promise.all([
      ferry('drift'),
      ferry('drift', '--cluster', cluster, '--at', '06:00'),
      ferry('drift', '--cluster', cluster, '--schedule', 'weekly'),
      ferry('drift', '--cluster', cluster, '--schedule', 'daily', '--at', '24:10'),
      ferry('drift', '--cluster', cluster, '--unschedule', '--tag', 'web'),
    ]);
    expect(runs.map((r) => r.code)).toEqual([2, 2, 2, 2, 2]);
    expect(runs[0]!.output).toContain('say which cluster: ferry drift --cluster C [--tag T]');
    expect(runs[1]!.output).toContain('--at goes with --schedule daily');
    expect(runs[2]!.output).toContain('--schedule: "weekly" is not known; say daily');
    expect(runs[3]!.output).toContain('--at: "24:10" is not a time of day as HH:MM');
    expect(runs[4]!.output).toContain('--unschedule takes only --cluster');
  });

  it('reports a NetBox edit and a hand change in Proxmox in their directions, not the unchanged VM, and writes nothing', async () => {
    const [edited, byHand, calm] = [await provisioned(), await provisioned(), await provisioned()];
    // A first apply stores each VM's baseline (ferry_applied): only then can a hand change be told from an edit.
    const applied = await ferry('apply', '--cluster', cluster, '--tag', tag, '--wait');
    expect(applied.output).toContain('3 VM(s) applied, 0 skipped');
    expect(applied.code).toBe(0);

    const agreed = await ferry('drift', '--cluster', cluster, '--tag', tag);
    expect(agreed.output).toContain(`3 VM(s) read, 0 drift, 0 unreadable (cluster ${cluster}, tag ${tag})`);
    expect(agreed.code).toBe(0);

    await suite.lab.nb.updateVirtualMachine(edited.id, { memory: 3072 });
    await suite.lab.deps.proxmox!.config.write('pve1', byHand.vmid, { method: 'PUT', params: { cores: '4' } });
    await suite.lab.admin.clearLog();
    const netbox = netboxRequests();
    const drift = await ferry('drift', '--cluster', cluster, '--tag', tag);
    const seen = netbox.stop();

    expect(drift.code).toBe(1);
    expect(drift.output).toContain(
      `${edited.name} (NetBox VM ${edited.id}, VM ${edited.vmid} on pve1, stopped):\n` +
        '  NetBox → Proxmox (edited in NetBox, not in Proxmox yet):\n' +
        '    memory: 2048 MiB → 3072 MiB [live]',
    );
    expect(drift.output).toContain(
      `${byHand.name} (NetBox VM ${byHand.id}, VM ${byHand.vmid} on pve1, stopped):\n` +
        '  changed by hand in Proxmox:\n' +
        '    vcpus: Proxmox 4, NetBox 2 [reported]',
    );
    expect(drift.output).not.toContain(calm.name);
    expect(drift.output).toContain(`3 VM(s) read, 2 drift, 0 unreadable (cluster ${cluster}, tag ${tag})`);

    // Nothing written: not to Proxmox (the simulator's log), not to NetBox (the worker's requests).
    const log = await suite.lab.admin.log();
    expect(apiWrites(log.requests)).toEqual([]);
    const pveReads = log.requests.filter((r) => r.method === 'GET');
    expect(seen.every((r) => r.startsWith('GET '))).toBe(true);
    // NetBox read in pages, not per VM: the VMs, the cluster's interfaces, the disks of all three.
    expect(seen.filter((r) => r.includes('/virtual-machines/'))).toHaveLength(1);
    expect(seen.filter((r) => r.includes('/interfaces/'))).toHaveLength(1);
    expect(seen.filter((r) => r.includes('/virtual-disks/'))).toHaveLength(1);
    expect(seen).toHaveLength(3);
    // Proxmox: /cluster/resources, pve1's storages, and each VM's config with pending.
    expect(pveReads.map((r) => r.path).sort()).toEqual(
      [
        '/cluster/resources',
        '/nodes/pve1/storage',
        ...[edited, byHand, calm].map((vm) => `/nodes/pve1/qemu/${vm.vmid}/pending`),
      ].sort(),
    );
    console.log(`drift over 3 VMs: ${seen.length} NetBox request(s), ${pveReads.length} Proxmox GET(s)`);

    const json = await ferry('drift', '--cluster', cluster, '--tag', tag, '--json');
    const report = JSON.parse(json.output) as DriftReport;
    expect(json.code).toBe(1);
    expect(report.read).toBe(3);
    expect(report.unreadable).toEqual([]);
    expect(report.drifting.map((v) => v.netboxId)).toEqual([edited.id, byHand.id]);
    expect(report.drifting[0]!.toProxmox).toEqual([
      { id: 'memory', kind: 'memory', from: '2048', to: '3072', class: 'live', side: 'netbox' },
    ]);
    expect(report.drifting[1]!.byHand).toEqual([
      { id: 'vcpus', kind: 'vcpus', from: '4', to: '2', class: 'reported', side: 'proxmox' },
    ]);
    expect(report.drifting[1]!.toProxmox).toEqual([]);
  });

  it('a VM gone from Proxmox is listed as unreadable with the reason', async () => {
    const gone = await provisioned();
    await suite.lab.deps.proxmox!.vms.delete('pve1', gone.vmid);
    const drift = await ferry('drift', '--cluster', cluster, '--tag', tag, '--json');
    const report = JSON.parse(drift.output) as DriftReport;
    expect(drift.code).toBe(1);
    expect(report.unreadable).toEqual([
      {
        netboxId: gone.id,
        name: gone.name,
        vmid: gone.vmid,
        reason: `Proxmox has no VM ${gone.vmid} (removed by hand, or never built?)`,
      },
    ]);
  });

  it('creates the daily schedule, updates it in place, leaves it alone on a rerun, runs it, and deletes it', async () => {
    const schedules = suite.temporal.client.schedule;
    const id = `drift-${cluster}`;
    const created = await ferry('drift', '--cluster', cluster, '--tag', tag, '--schedule', 'daily', '--at', '05:30');
    expect(created.output).toContain(`schedule ${id}: created (driftReport daily at 05:30 UTC)`);
    const first = await schedules.getHandle(id).describe();
    expect(first.spec.calendars?.[0]).toMatchObject({
      hour: [{ start: 5, end: 5 }],
      minute: [{ start: 30, end: 30 }],
    });
    expect(first.spec.timezone ?? 'UTC').toBe('UTC');
    expect(first.action).toMatchObject({
      type: 'startWorkflow',
      workflowType: 'driftReport',
      taskQueue: suite.workers.taskQueue,
      args: [{ cluster, tag }],
    });

    const again = await ferry('drift', '--cluster', cluster, '--tag', tag, '--schedule', 'daily', '--at', '05:30');
    expect(again.output).toContain(`schedule ${id}: unchanged`);
    const moved = await ferry('drift', '--cluster', cluster, '--tag', tag, '--schedule', 'daily', '--at', '07:15');
    expect(moved.output).toContain(`schedule ${id}: updated (driftReport daily at 07:15 UTC)`);
    const second = await schedules.getHandle(id).describe();
    expect(second.spec.calendars).toHaveLength(1);
    expect(second.spec.calendars?.[0]).toMatchObject({ hour: [{ start: 7 }], minute: [{ start: 15 }] });
    expect(second.info.createdAt).toEqual(first.info.createdAt);

    // Run now, as the schedule would at 07:15: a driftReport on the worker.
    await schedules.getHandle(id).trigger();
    const deadline = Date.now() + 60_000;
    let started: string | undefined;
    while (!started && Date.now() < deadline) {
      const action = (await schedules.getHandle(id).describe()).info.recentActions[0]?.action;
      started = action?.type === 'startWorkflow' ? action.workflow.workflowId : undefined;
      if (!started) await new Promise((r) => setTimeout(r, 300));
    }
    expect(started).toMatch(new RegExp(`^${id}`));
    const report: DriftReport = await suite.temporal.client.workflow.getHandle(started!).result();
    expect(report).toMatchObject({ cluster, tag });
    expect(report.read).toBeGreaterThanOrEqual(3);

    const deleted = await ferry('drift', '--cluster', cluster, '--unschedule');
    expect(deleted.output).toContain(`schedule ${id}: deleted`);
    await expect(schedules.getHandle(id).describe()).rejects.toBeInstanceOf(ScheduleNotFoundError);
    const absent = await ferry('drift', '--cluster', cluster, '--unschedule');
    expect(absent.output).toContain(`schedule ${id}: absent`);
    expect(absent.code).toBe(0);
  });
});

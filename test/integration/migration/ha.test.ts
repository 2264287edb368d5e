import type { Client } from '@temporalio/client';
import { z } from 'zod';
import type { ActivityDeps } from '../../../activities';
import { haConfig, migrateGroupsToRules } from '../../../lab/proxmox-sim/ha/state';
import type { MigrationStatus } from '../../../src/domain/migration';
import { migrationStatusQuery, rollbackUpdate, approveWaveUpdate, waveStatusQuery } from '../../../src/domain/messages';
import type { migrationWave } from '../../../workflows/migration-wave';
import { labWorkers, useMigrationLab } from '../../helpers/migration-lab';
import { until } from '../../helpers/wait';
import { readWaveOutcome } from '../../../lab/wave-result';

/**
 * migration.ha against the PVE 9.1 simulator: with a group (the cluster before its groups became rules,
 * as on PVE 8) the migrated VM ends as an HA resource in the group; after the upgrade (groups → rules)
 * a VM joins a rule; one whose rule change PVE refuses stops at a decision, and the rollback takes it
 * out of HA again.
 */
function withHa(deps: ActivityDeps, ha: Record<string, unknown>): ActivityDeps {
  const migration = deps.config.migration!;
  return {
    ...deps,
    config: {
      ...deps.config,
      migration: {
        ...migration,
        ha: { state: 'started', ...ha },
        cutover: { ...migration.cutover, startAfter: true },
        verify: { ...migration.verify, enabled: false },
      },
    },
  };
}

async function approveOne(client: Client, taskQueue: string, name: string) {
  const wave = await client.workflow.start<typeof migrationWave>('migrationWave', {
    taskQueue,
    workflowId: `${taskQueue}-wave`,
    args: [{ waveId: taskQueue, selection: { names: [name] } }],
  });
  const vm = await until(`${name} at the approval gate`, async () => {
    const s = await wave.query(waveStatusQuery);
    return s.vms[0]?.stage === 'awaiting-approval' ? s.vms[0] : undefined;
  });
  const child = client.workflow.getHandle(vm.workflowId);
  await wave.executeUpdate(approveWaveUpdate, { args: [{ by: 'alice', reason: 'ha test' }] });
  return { wave, child };
}

describe('migration.ha: HA registration after the cutover, and its removal on rollback', () => {
  jest.setTimeout(600_000);
  const suite = useMigrationLab();

  it('group before the upgrade, rule after it, and a refused rule change rolled back', async () => {
    const { client, nativeConnection } = suite.temporal;
    const pve = suite.lab.deps.proxmox!;
    const cluster = suite.lab.pve.cluster;
    const admin = (path: string, form: Record<string, string>) => pve.transport.call('POST', path, form, z.unknown());
    await admin('/cluster/ha/groups', { group: 'prod', nodes: 'pve1:2,pve2' });

    // 1. ha.group: the VM ends migrated, an HA resource in group prod.
    const grouped = await labWorkers(nativeConnection, withHa(suite.lab.deps, { group: 'prod' }));
    const web = await grouped.run(async () => {
      const { wave, child } = await approveOne(client, grouped.taskQueue, 'mig-web01');
      expect((await readWaveOutcome(suite.temporal.client, wave)).status.vms).toEqual([
        expect.objectContaining({ name: 'mig-web01', outcome: 'migrated' }),
      ]);
      return (await child.result()) as MigrationStatus;
    });
    const webSid = `vm:${web.vmid}`;
    expect(web.ha).toEqual({ sid: webSid, group: 'prod', registered: true });
    expect(await pve.ha.resources()).toEqual([
      expect.objectContaining({ sid: webSid, group: 'prod', state: 'started' }),
    ]);

    // The cluster's nodes all run 9 now: the HA manager turns group prod into rule ha-group-prod.
    migrateGroupsToRules(haConfig(cluster));
    expect([...haConfig(cluster).rules.keys()]).toEqual(['ha-group-prod']);

    // 2. ha.rule: the VM joins the rule the group became.
    const ruled = await labWorkers(nativeConnection, withHa(suite.lab.deps, { rule: 'ha-group-prod' }));
    const scale = await ruled.run(async () => {
      const { wave, child } = await approveOne(client, ruled.taskQueue, 'scale-0002');
      expect((await readWaveOutcome(suite.temporal.client, wave)).status.vms).toEqual([
        expect.objectContaining({ name: 'scale-0002', outcome: 'migrated' }),
      ]);
      return (await child.result()) as MigrationStatus;
    });
    expect(scale.ha).toEqual({ sid: `vm:${scale.vmid}`, rule: 'ha-group-prod', registered: true });
    expect(haConfig(cluster).rules.get('ha-group-prod')!.resources).toEqual([webSid, `vm:${scale.vmid}`]);

    // 3. A negative resource-affinity rule keeps three resources apart on three nodes: PVE refuses a
    // fourth. The cutover waits for a decision; the rollback takes the VM out of HA first.
    await pve.waitForTask(String(await admin('/nodes/pve3/qemu', { vmid: '990', name: 'other', memory: '512' })));
    await admin('/cluster/ha/resources', { sid: 'vm:990', state: 'stopped' });
    const three = [webSid, `vm:${scale.vmid}`, 'vm:990'];
    await admin('/cluster/ha/rules', {
      rule: 'spread',
      type: 'resource-affinity',
      affinity: 'negative',
      resources: three.join(','),
    });
    const spread = await labWorkers(nativeConnection, withHa(suite.lab.deps, { rule: 'spread' }));
    await spread.run(async () => {
      const { wave, child } = await approveOne(client, spread.taskQueue, 'mig-db01');
      const waiting = await until('mig-db01 waiting for a decision', async () => {
        const s = await child.query(migrationStatusQuery);
        return s.stage === 'awaiting-decision' ? s : undefined;
      });
      expect(waiting.error).toBeDefined();
      expect(waiting.ha).toEqual({ sid: `vm:${waiting.vmid}`, registered: false });
      expect(waiting.error).toMatch(/more resources than available nodes/);
      // The resource was created before PVE refused the rule change.
      expect((await pve.ha.resources()).map((r) => r.sid)).toContain(`vm:${waiting.vmid}`);
      await child.executeUpdate(rollbackUpdate, { args: [{ by: 'alice', reason: 'HA rule refused' }] });
      expect((await readWaveOutcome(suite.temporal.client, wave)).status.vms).toEqual([
        expect.objectContaining({ name: 'mig-db01', outcome: 'rolled-back' }),
      ]);
      const db = (await child.result()) as MigrationStatus;
      expect(db.ha).toEqual({ sid: `vm:${db.vmid}`, registered: false, removed: true });
      expect((await pve.ha.resources()).map((r) => r.sid).sort()).toEqual([...three].sort());
      expect(haConfig(cluster).rules.get('spread')!.resources).toEqual(three);
      const [dbVm] = await pve.vms.findByName('mig-db01');
      expect(dbVm).toMatchObject({ vmid: db.vmid, status: 'stopped' });
    });
  });
});

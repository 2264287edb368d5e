import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import { migrationStatusQuery } from '../../src/domain/messages';
import type { StatusView } from '../../src/domain/status';
import type { ReportModel } from '../../src/report';
import type { migrationWave } from '../../workflows/migration-wave';
import { readWaveOutcome } from '../../lab/wave-result';
import { labWorkers, useMigrationLab } from '../helpers/migration-lab';
import { spawnFerry } from '../helpers/processes';

const REASON =
  /Hard disk 1 is on LocalDS_0 \(\[LocalDS_0\] mig-legacy01\/mig-legacy01\.vmdk\), not on the migration datastore nfs-migration; the storage vMotion did not move it/;

/**
 * What is known before the approval gate is checked there: mig-legacy01's disk stays on LocalDS_0 after
 * its storage vMotion (vcsim moves no files), so it is refused before anyone is asked to approve it,
 * the shell built for it is removed, and every view says why: `ferry status` of the wave (text and
 * --json) and of the VM, and `ferry report`.
 */
describe('a VM refused before its approval gate', () => {
  jest.setTimeout(400_000);
  const suite = useMigrationLab();

  it('is refused with its reason and no shell left, without anyone approving, and every view says why', async () => {
    const workers = await labWorkers(suite.temporal.nativeConnection, suite.lab.deps);
    const waveId = workers.taskQueue;
    const configFile = path.join(suite.lab.stateDir, 'cli.yaml');
    writeFileSync(configFile, stringify({ ...suite.lab.document, worker: { taskQueue: workers.taskQueue } }));
    const ferry = async (...args: string[]) => {
      const run = spawnFerry(['-c', configFile, ...args], suite.lab.env);
      return { code: await run.exited, output: run.output() };
    };
    await workers.run(async () => {
      // No approval is ever given: the wave ends because the VM is refused before its gate.
      const wave = await suite.temporal.client.workflow.start<typeof migrationWave>('migrationWave', {
        taskQueue: workers.taskQueue,
        workflowId: `${waveId}-wave`,
        args: [{ waveId, selection: { names: ['mig-legacy01'] } }],
      });
      const result = await readWaveOutcome(suite.temporal.client, wave);
      const [vm] = result.status.vms;
      expect(vm).toMatchObject({ name: 'mig-legacy01', outcome: 'refused', stage: 'refused' });
      expect(vm!.refusal).toMatch(REASON);
      const own = await suite.temporal.client.workflow.getHandle(vm!.workflowId).query(migrationStatusQuery);
      expect(own.timings.map((t) => t.stage)).toEqual(['validate', 'networks', 'shell', 'relocate', 'refused']);
      expect(own.actions.map((a) => a.kind)).toEqual(['create-vm', 'set-nic', 'relocate', 'remove-shell', 'refuse']);
      expect(own.actions).toContainEqual({ kind: 'remove-shell', vm: 'mig-legacy01', vmid: own.vmid, refused: true });
      expect(own.refusals).toEqual([
        expect.objectContaining({ code: 'disk-unmapped-datastore', subject: 'Hard disk 1' }),
      ]);
      expect(await suite.lab.deps.proxmox!.vms.findByName('mig-legacy01')).toEqual([]);
      expect(
        (await suite.lab.deps.vsphere!.discover()).inventory.vms.find((v) => v.name === 'mig-legacy01')!.powerState,
      ).toBe('poweredOn');

      // ferry status of the wave: the row says why, once (not "refused refused").
      const text = await ferry('status', wave.workflowId);
      expect(text.code).toBe(0);
      const row = text.output.split('\n').find((l) => l.includes('mig-legacy01'))!;
      expect(row).toMatch(/^ {2}mig-legacy01 +refused +Hard disk 1 is on LocalDS_0/);
      expect(row).toMatch(REASON);
      const json = JSON.parse((await ferry('status', wave.workflowId, '--json')).output) as StatusView;
      expect(json.wave!.rows[0]).toMatchObject({ name: 'mig-legacy01', outcome: 'refused' });
      expect(json.wave!.rows[0]!.refusal).toMatch(REASON);
      const full = await ferry('status', wave.workflowId, '--full');
      expect(full.output).toMatch(/mig-legacy01 +finished +refused +refused: Hard disk 1 is on LocalDS_0/);
      // ferry status of the VM: its refusals, and the shell removed with them.
      const one = await ferry('status', vm!.workflowId);
      expect(one.output).toMatch(new RegExp(`  refused:\\n    ${REASON.source}`));
      expect(one.output).toContain(`mig-legacy01: remove the shell VM ${own.vmid} (refused before its approval)`);

      // ferry report: the refusal with its reason, in the model and in the Markdown.
      const model = JSON.parse((await ferry('report', waveId, '--json')).output) as ReportModel;
      expect(model.refusals).toEqual([{ vm: 'mig-legacy01', reasons: [expect.stringMatching(REASON)] }]);
      const md = await ferry('report', waveId, '--md');
      expect(md.output).toMatch(new RegExp(`^- \\*\\*mig-legacy01\\*\\*: ${REASON.source}`, 'm'));
    });
  });
});

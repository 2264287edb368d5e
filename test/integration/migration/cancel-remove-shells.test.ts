import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import { waveStatusQuery } from '../../../src/domain/messages';
import type { migrationWave } from '../../../workflows/migration-wave';
import { labWorkers, useMigrationLab } from '../../helpers/migration-lab';
import { ferryOnTerminal } from '../../helpers/terminal';
import { until } from '../../helpers/wait';
import { readWaveOutcome } from '../../../lab/wave-result';

/**
 * `ferry cancel --remove-shells` at the approval gate with a worker that has only its API token (no
 * PROXMOX_PRIVILEGED_PASSWORD): the token removes a shell (PVE asks VM.Allocate, not root); a shell it
 * cannot remove (held by a backup's lock, which only root@pam may skip) stays, the run still ends
 * cancelled, and `ferry status` says which shell went and why the other did not — on a terminal.
 */
describe('ferry cancel --remove-shells with the token alone', () => {
  jest.setTimeout(400_000);
  const suite = useMigrationLab({ methodDelay: { LockHandoff: 0 }, migration: { heartbeatTimeout: '3s' } });

  it('removes the shell it may, keeps the one it may not with the reason, and status says which', async () => {
    const { proxmoxPrivileged: _root, ...tokenOnly } = suite.lab.deps;
    const workers = await labWorkers(suite.temporal.nativeConnection, tokenOnly);
    const configFile = path.join(suite.lab.stateDir, 'cli.yaml');
    writeFileSync(configFile, stringify({ ...suite.lab.document, worker: { taskQueue: workers.taskQueue } }));
    // Each command as a person runs it, on a terminal (tmux): what they read is what is asserted.
    const ferry = async (...args: string[]) => {
      const { screen, code } = await ferryOnTerminal(suite.lab.stateDir, suite.lab.env, ['-c', configFile, ...args]);
      return { code, output: screen };
    };
    const names = ['scale-0007', 'scale-0008'];
    await workers.run(async () => {
      const wave = await suite.temporal.client.workflow.start<typeof migrationWave>('migrationWave', {
        taskQueue: workers.taskQueue,
        workflowId: `${workers.taskQueue}-wave`,
        args: [{ waveId: workers.taskQueue, selection: { names } }],
      });
      const waiting = await until(
        'both VMs at the approval gate',
        async () => {
          const s = await wave.query(waveStatusQuery);
          return s.vms.length === 2 && s.vms.every((v) => v.stage === 'awaiting-approval') ? s.vms : undefined;
        },
        300_000,
      );
      // A backup holds scale-0008's shell (vzdump's lock: only root@pam may skip it).
      const [locked] = await suite.lab.deps.proxmox!.vms.findByName('scale-0008');
      suite.lab.pve.cluster.vm(locked!.node, locked!.vmid).config.lock = 'backup';

      const cancelled = await ferry(
        ...['cancel', wave.workflowId, '--by', 'alice', '--reason', 'retired instead', '--remove-shells'],
      );
      expect(cancelled.code).toBe(0);
      const result = await readWaveOutcome(suite.temporal.client, wave);
      const vm = (name: string) => result.status.vms.find((v) => v.name === name)!;
      // Both runs end cancelled (none FAILED): the cancel stands whatever became of the shell.
      expect(result.status.vms.map((v) => [v.name, v.outcome, v.error])).toEqual([
        ['scale-0007', 'cancelled', undefined],
        ['scale-0008', 'cancelled', undefined],
      ]);
      expect(vm('scale-0007').cancellation).toMatchObject({ removeShells: true, left: { shell: 'removed' } });
      expect(vm('scale-0008').cancellation).toMatchObject({
        removeShells: true,
        left: {
          shell: 'kept',
          shellNotRemoved: expect.stringContaining(
            `discarding VM ${locked!.vmid} (locked: backup) needs skiplock, which Proxmox allows only root@pam`,
          ),
        },
      });
      expect(result.actions.filter((a) => a.kind === 'remove-shell').map((a) => 'vm' in a && a.vm)).toEqual([
        'scale-0007',
      ]);
      const pveNames = (await suite.lab.deps.proxmox!.vms.list()).map((v) => v.name);
      expect(pveNames).not.toContain('scale-0007');
      expect(pveNames).toContain('scale-0008');

      // What `ferry status` says of each VM is what happened to its shell.
      const workflowOf = (name: string) => waiting.find((v) => v.name === name)!.workflowId;
      const removed = await ferry('status', workflowOf('scale-0007'));
      expect(removed.output).toContain('cancelled by alice: retired instead (wave cancel) in stage awaiting-approval');
      expect(removed.output).toMatch(/left on VMware: poweredOff; .*; shell removed$/m);
      const kept = await ferry('status', workflowOf('scale-0008'));
      expect(kept.output).toMatch(/; shell kept: NOT removed: .*needs skiplock/);
      expect(kept.output).not.toContain('shell removed');
      const whole = await ferry('status', wave.workflowId, '--full');
      expect(whole.output).toContain('cancelled by alice: retired instead (--remove-shells)');
      expect(whole.output).not.toContain('shells removed');
    });
  });
});

import type { Command } from 'commander';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { withClient, type GlobalOptions } from '../client';
import { resolveTarget } from '../targets';

const DECISIONS = {
  approve: { update: 'approveCutover', help: 'approve the cutover of a VM, or of a wave (all VMs or --vms), or a teardown that waits for approval' },
  reject: { update: 'rejectCutover', help: 'reject a VM’s cutover (its workflow ends, VMware untouched), or a teardown (nothing removed)' },
  retry: { update: 'retryCutover', help: 'after a failure past the shutdown: try the cutover steps again' },
  rollback: { update: 'rollback', help: 'after a failure past the shutdown: power the VMware VM back on, remove imported disks' },
} as const;

/** A teardown's gate takes approve and reject only (a failed teardown is rerun, not retried). */
const TEARDOWN_UPDATES: Partial<Record<keyof typeof DECISIONS, string>> = { approve: 'approveTeardown', reject: 'rejectTeardown' };

interface DecisionFlags {
  by: string;
  reason: string;
  vms?: string;
}

/** approve / reject / retry / rollback: validated updates, so a refusal is reported here and changes nothing. */
export function registerDecisions(program: Command): void {
  for (const [name, { update, help }] of Object.entries(DECISIONS)) {
    const command = program
      .command(`${name} <target>`)
      .description(`${help}; target: VM name, wave id or workflow id`)
      .requiredOption('--by <name>', 'who decides (must be an approver in ferry.yaml)')
      .requiredOption('--reason <text>', 'why (recorded in the workflow history)');
    if (name === 'approve') command.option('--vms <a,b,…>', 'for a wave: only these VMs');
    command.action(async (target: string, flags: DecisionFlags, cmd: Command) => {
      await withClient(cmd.optsWithGlobals<GlobalOptions>(), async (client) => {
        const handle = await resolveTarget(client, target, ['migrate', 'wave', 'teardown']);
        const vms = flags.vms?.split(',').map((v) => v.trim()).filter(Boolean);
        const teardown = (await handle.describe()).type === 'teardownVm';
        const chosen = teardown ? TEARDOWN_UPDATES[name as keyof typeof DECISIONS] : update;
        if (!chosen) throw new Error(`${name} is for migrations; a teardown is approved or rejected (rerun \`ferry teardown\` to finish an incomplete one)`);
        try {
          await handle.executeUpdate(chosen, { args: [{ by: flags.by, reason: flags.reason, ...(vms ? { vms } : {}) }] });
        } catch (err) {
          if (err instanceof WorkflowUpdateFailedError) {
            throw new Error(`${name} refused by ${handle.workflowId}: ${err.cause?.message ?? err.message}`);
          }
          throw err;
        }
        console.log(`${name}: accepted by ${handle.workflowId}`);
      });
    });
  }
}

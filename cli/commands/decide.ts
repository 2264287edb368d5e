import type { Command } from 'commander';
import type { Client, WorkflowExecutionDescription } from '@temporalio/client';
import type { UpdateDefinition } from '@temporalio/common';
import type { CutoverApproval } from '../../src/domain/migration';
import { VmName, WaveId } from '../../src/domain/search-attributes';
import {
  approveChangeUpdate,
  approveCutoverUpdate,
  approveTeardownUpdate,
  approveWaveUpdate,
  rejectChangeUpdate,
  rejectCutoverUpdate,
  rejectTeardownUpdate,
  retryCutoverUpdate,
  rollbackUpdate,
} from '../../src/domain/messages';
import { CHANGE_VM_WORKFLOW_TYPE } from '../../src/domain/change-vm';
import type { GlobalOptions } from '../client';
import { UsageError } from '../errors';

type Decision = UpdateDefinition<unknown, [CutoverApproval]>;

/** Each decision's update, per kind of workflow that takes it (the CLI answers only with accepted or refused). */
interface DecisionTarget {
  help: string;
  vm: Decision;
  /** A wave takes approve only; the others go to one VM's workflow. */
  wave?: Decision;
  /** A teardown's gate takes approve and reject only (a failed teardown is rerun, not retried). */
  teardown?: Decision;
  /** A day-2 change's gate (changes that wait for a restart) takes approve and reject only. */
  change?: Decision;
}

const DECISIONS: Record<'approve' | 'reject' | 'retry' | 'rollback', DecisionTarget> = {
  approve: {
    help: 'approve the cutover of a VM, or of a wave (all VMs or --vms), a teardown, or a day-2 change (change-<vmid>) that waits for approval',
    vm: approveCutoverUpdate,
    wave: approveWaveUpdate,
    teardown: approveTeardownUpdate,
    change: approveChangeUpdate as Decision,
  },
  reject: {
    help: 'reject a VM’s cutover (its workflow ends, VMware untouched), a teardown (nothing removed), or the changes of a day-2 change that wait for a restart (nothing of them written)',
    vm: rejectCutoverUpdate,
    teardown: rejectTeardownUpdate,
    change: rejectChangeUpdate as Decision,
  },
  retry: { help: 'after a failure past the shutdown: try the cutover steps again', vm: retryCutoverUpdate },
  rollback: {
    help: 'after a failure past the shutdown: power the VMware VM back on, remove imported disks',
    vm: rollbackUpdate,
  },
};

interface DecisionFlags {
  by: string;
  reason: string;
  vms?: string;
  wait?: boolean;
  key?: string;
  signature?: string;
  printStatement?: boolean;
  discardGuestWrites?: boolean;
  at?: string;
  restart?: boolean;
}

/** approve / reject / retry / rollback: validated updates, so a refusal is reported here and changes nothing. */
export function registerDecisions(program: Command): void {
  for (const [name, updates] of Object.entries(DECISIONS)) {
    const { help } = updates;
    const command = program
      .command(`${name} <target>`)
      .description(`${help}; target: VM name, wave id or workflow id`)
      .requiredOption('--by <name>', 'who decides (must be an approver in ferry.yaml)')
      .requiredOption('--reason <text>', 'why (recorded in the workflow history)');
    if (name === 'approve') {
      command
        .option('--vms <a,b,…>', 'for a wave: only these VMs')
        .option(
          '--key <file>',
          'sign with this SSH ed25519 key (ssh-keygen -Y sign; a .pub file signs through ssh-agent)',
        )
        .option('--signature <file>', 'a signature made elsewhere of the statement --print-statement shows')
        .option('--print-statement', 'show the plan and the exact text to sign, and change nothing')
        .option(
          '--at <time>',
          "start the cutover no earlier than this ISO 8601 time with zone (and inside the wave's cutoverWindow)",
        )
        .option(
          '--restart',
          'a day-2 change: ferry restarts the VM (ACPI, then the policy’s hard stop) so the changes take effect',
        );
    }
    if (name === 'retry' || name === 'rollback') {
      command.option(
        '--discard-guest-writes',
        'after a failed live import: accept losing what the guest wrote since it started on Proxmox (required then)',
      );
    }
    command.option('--wait', "when no worker polls the workflow's task queue, wait for one (else: say so and exit 1)");
    command.action(async (target: string, flags: DecisionFlags, cmd: Command) => {
      // Loaded when the command runs, so that `ferry --help` and the other commands do not pay for it.
      const { WorkflowUpdateFailedError } = require('@temporalio/client') as typeof import('@temporalio/client');
      const { withClient } = require('../client') as typeof import('../client');
      const { requireWorker } = require('../worker-presence') as typeof import('../worker-presence');
      const { resolveTarget } = require('../targets') as typeof import('../targets');
      const { sign, statementOf, whatIsSigned } = require('../signed-approval') as typeof import('../signed-approval');
      const { parseAtTime } = require('../at-time') as typeof import('../at-time');
      const when = flags.at !== undefined ? { notBefore: parseAtTime(flags.at) } : {};
      await withClient(cmd.optsWithGlobals<GlobalOptions>(), async (client) => {
        const handle = await resolveTarget(client, target, ['migrate', 'wave', 'teardown', 'change']);
        const vms = flags.vms
          ?.split(',')
          .map((v) => v.trim())
          .filter(Boolean);
        const description = await handle.describe();
        const chosen = await chooseDecision(client, name, updates, description, { ...flags, vms });
        // An update is answered by a worker: without one it would wait in silence.
        await requireWorker(client, description.taskQueue, {
          wait: Boolean(flags.wait),
          what: `${name} of ${handle.workflowId}`,
        });
        const signing = {
          by: flags.by,
          reason: flags.reason,
          vms,
          key: flags.key,
          signatureFile: flags.signature,
          restart: flags.restart,
        };
        const signs = name === 'approve' && (flags.key || flags.signature || flags.printStatement);
        const unsigned = signs ? await whatIsSigned(client, handle, description.type, signing) : undefined;
        if (unsigned) for (const line of unsigned.shown) console.error(`plan: ${line}`);
        if (unsigned && flags.printStatement) return void console.log(statementOf(unsigned, signing));
        const signed = unsigned && (await sign(unsigned, signing));
        try {
          await handle.executeUpdate(chosen, {
            args: [
              {
                by: flags.by,
                reason: flags.reason,
                ...(vms && !signed ? { vms } : {}),
                ...(signed ? { signed } : {}),
                ...when,
                ...(flags.discardGuestWrites ? { discardGuestWrites: true } : {}),
                ...(flags.restart ? { restart: true } : {}),
              },
            ],
          });
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

/** The update for this decision on this kind of workflow, or a usage error saying which decisions it takes. */
async function chooseDecision(
  client: Client,
  name: string,
  updates: DecisionTarget,
  description: WorkflowExecutionDescription,
  flags: Pick<DecisionFlags, 'at' | 'restart'> & { vms?: string[] },
): Promise<Decision> {
  const { workflowId, type } = description;
  const wave = type === 'migrationWave';
  if (wave && !updates.wave) throw await waveRefusal(client, name, description);
  if (flags.vms && !wave) throw new UsageError(`--vms is for a wave; ${workflowId} is a ${type}`);
  if (flags.at !== undefined && (type === 'teardownVm' || type === CHANGE_VM_WORKFLOW_TYPE))
    throw new UsageError(`--at is for cutovers; ${workflowId} is a ${type}`);
  if (flags.restart && type !== CHANGE_VM_WORKFLOW_TYPE)
    throw new UsageError(`--restart is for a day-2 change (change-<vmid>); ${workflowId} is a ${type}`);
  if (type === CHANGE_VM_WORKFLOW_TYPE) {
    if (!updates.change)
      throw new UsageError(
        `${name} is for migrations; a day-2 change is approved or rejected (${workflowId} waits for one of them)`,
      );
    return updates.change;
  }
  const chosen = wave ? updates.wave : type === 'teardownVm' ? updates.teardown : updates.vm;
  if (!chosen)
    throw new Error(
      `${name} is for migrations; a teardown is approved or rejected (rerun \`ferry teardown\` to finish an incomplete one)`,
    );
  return chosen;
}

/** A wave takes approve only; reject, retry and rollback go to one VM's workflow, listed here. */
async function waveRefusal(client: Client, decision: string, wave: WorkflowExecutionDescription): Promise<UsageError> {
  // Loaded when the command runs, so that `ferry --help` and the other commands do not pay for it.
  const { quote } = require('../targets') as typeof import('../targets');
  const waveId = wave.typedSearchAttributes.get(WaveId);
  const lines: string[] = [];
  if (waveId !== undefined) {
    const query = `FerryKind = 'migrate' AND WaveId = ${quote(waveId)}`;
    for await (const vm of client.workflow.list({ query, pageSize: 100 })) {
      lines.push(
        `  ${vm.workflowId}  ${String(vm.typedSearchAttributes.get(VmName) ?? '').padEnd(20)} ${vm.status.name}`,
      );
      if (lines.length >= 100) break;
    }
  }
  return new UsageError(
    `${decision} is decided per VM: ${wave.workflowId} is a wave, which takes approve only. Run \`ferry ${decision} <VM workflow>\` with one of:\n` +
      (lines.length ? lines.join('\n') : '  (no VM workflows of this wave yet)'),
  );
}

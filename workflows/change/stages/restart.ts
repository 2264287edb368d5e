import type { ChangePlan } from '../../../src/domain/change';
import { pollUntil } from '../../poll';
import { bootVm } from '../../vm/boot';
import type { ChangeRun } from '../run-context';
import { writeConfig } from './apply';

const STOPPED_TIMEOUT_MS = 10 * 60_000;

/**
 * The restart an approval asked for, so the changes that wait for it take effect: ACPI shutdown, a hard
 * stop if the guest ignores it past the timeout (when `change.restart.forceStop`), the needs-stop
 * write while it is off, then a start under the VM-start limit and, if its agent answered before the
 * restart, a wait for it to answer again (a guest without an agent is not waited for, and said so).
 */
export async function restartVm(run: ChangeRun, plan: ChangePlan): Promise<void> {
  run.enter('restart');
  const { node, vmid } = plan;
  const name = run.status.name ?? `VM ${vmid}`;
  const { shutdownTimeoutMs, forceStop } = run.settings.restart;
  const agentBefore = await pingAgent(run, node, vmid, name);
  const shut = await run.acts
    .shutdown(shutdownTimeoutMs)
    .shutdownVm.executeWithOptions({ summary: `shut down ${name} (ACPI) for its approved changes` }, [
      { node, vmid, timeoutMs: shutdownTimeoutMs },
    ]);
  if (shut.result === 'timed-out') {
    if (!forceStop)
      throw new Error(
        `${name} did not shut down within ${Math.round(shutdownTimeoutMs / 1000)} s and change.restart.forceStop is off`,
      );
    await run.acts.pveTask.stopVm.executeWithOptions({ summary: `stop ${name} hard (the guest ignored ACPI)` }, [
      { node, vmid },
    ]);
  }
  await untilStopped(run, node, vmid);
  if (plan.steps.stopped) await writeConfig(run, plan, 'stopped', plan.steps.stopped);
  await bootVm(run, { node, vmid, name });
  run.status.restarted = true;
  if (agentBefore.answered) await untilAgentAnswers(run, node, vmid, name);
  else
    run.status.guestUnread = `the guest agent did not answer before the restart (${agentBefore.reason ?? 'no answer'}); not waited for`;
}

const pingAgent = (run: ChangeRun, node: string, vmid: number, name: string) =>
  run.acts.read.pingGuestAgent.executeWithOptions({ summary: `does ${name}'s agent answer?` }, [{ node, vmid }]);

async function untilStopped(run: ChangeRun, node: string, vmid: number): Promise<void> {
  const stopped = async () =>
    (await run.acts.read.vmPowerState.executeWithOptions({ summary: `is VM ${vmid} stopped?` }, [{ node, vmid }]))
      .status !== 'running';
  run.waited(
    await pollUntil(stopped, {
      what: `VM ${vmid} stopped`,
      intervalMs: run.settings.pollIntervalMs,
      timeoutMs: STOPPED_TIMEOUT_MS,
    }),
  );
}

/** The guest is up again when its agent answers (its view is what verification reads). */
async function untilAgentAnswers(run: ChangeRun, node: string, vmid: number, name: string): Promise<void> {
  let reason: string | undefined;
  const answers = async () => {
    const ping = await pingAgent(run, node, vmid, name);
    reason = ping.reason;
    return ping.answered;
  };
  try {
    const options = {
      what: `guest agent of ${name}`,
      intervalMs: Math.min(run.settings.pollIntervalMs, 2_000),
      timeoutMs: run.settings.guestTimeoutMs,
    };
    run.waited(await pollUntil(answers, options));
  } catch {
    run.status.guestUnread = `the guest agent did not answer within ${Math.round(run.settings.guestTimeoutMs / 1000)} s of the start${reason ? ` (${reason})` : ''}`;
  }
}

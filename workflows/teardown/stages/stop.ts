import { pollUntil } from '../../poll';
import type { TeardownRun } from '../run-context';

const STOP_TIMEOUT_MS = 10 * 60_000;

/** Graceful shutdown (ACPI), a hard stop if the guest ignores it, then wait until Proxmox reports it stopped. */
export async function stopPveVm(run: TeardownRun, vm: { vmid: number; node: string }): Promise<void> {
  const { acts, settings, enter, record, waited } = run;
  const { vmid, node } = vm;
  enter('shutdown');
  const timeoutMs = settings.teardown.shutdownTimeoutMs;
  const seconds = Math.round(timeoutMs / 1000);
  const shut = await acts
    .shutdown(timeoutMs)
    .shutdownVm.executeWithOptions({ summary: `shut down VM ${vmid} (ACPI), up to ${seconds} s` }, [
      { node, vmid, timeoutMs },
    ]);
  record({
    step: 'shutdown',
    outcome: shut.result === 'shut-down' ? 'done' : shut.result === 'timed-out' ? 'timed-out' : 'already',
    ...(shut.result === 'timed-out' ? { detail: `the guest did not shut down within ${seconds} s` } : {}),
  });
  if (shut.result === 'timed-out') {
    enter('stop');
    await acts.pveTask.stopVm.executeWithOptions({ summary: `stop VM ${vmid} hard (the guest ignored the shutdown)` }, [
      { node, vmid },
    ]);
    record({ step: 'stop', outcome: 'done', detail: 'forced' });
  }
  const stopped = async () =>
    (await acts.read.vmPowerState.executeWithOptions({ summary: `is VM ${vmid} stopped` }, [{ node, vmid }])).status !==
    'running';
  waited(
    await pollUntil(stopped, {
      what: `VM ${vmid} stopped`,
      intervalMs: settings.pollIntervalMs,
      timeoutMs: STOP_TIMEOUT_MS,
    }),
  );
}

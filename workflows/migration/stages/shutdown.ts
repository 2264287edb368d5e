import type { MigrationRun } from '../run-context';

/** The guest shuts down on VMware (forced off if the settings say so and it does not in time). */
export async function shutdownGuest(run: MigrationRun): Promise<undefined> {
  const { assessment } = run.vm;
  const { cutover } = run.settings;
  const shutdown = await run.acts
    .shutdown(cutover.shutdownTimeoutMs)
    .shutdownGuest.executeWithOptions({ summary: `shut down ${assessment.name} on VMware` }, [
      { moid: run.moid, timeoutMs: cutover.shutdownTimeoutMs, force: cutover.forcePowerOff },
    ]);
  if (shutdown.result !== 'already-off') run.record({ kind: 'shutdown-guest', vm: assessment.pveName, moid: run.moid });
  return undefined;
}

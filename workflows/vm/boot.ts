import { PERMIT_KEYS } from '../../src/domain/permits';
import type { ActivityProfiles } from './proxies';
import { underPermit, type WaitingRun } from './permit';

/** A start holds its permit at most this long without renewal (a start takes seconds). */
const START_LEASE_MS = 30 * 60_000;

export interface VmTarget {
  node: string;
  vmid: number;
  /** The VM's name, for summaries and the permit's label. */
  name: string;
}

/**
 * Starts the Proxmox VM unless it runs already (a retry or a rerun finds it up), holding a permit of
 * the global VM-start limit (`limits.vmStart`), so a wave's starts do not all hit a node at once.
 */
export async function bootVm(
  run: WaitingRun & { acts: ActivityProfiles; settings: { limits: { vmStart: number } } },
  { node, vmid, name }: VmTarget,
): Promise<'started' | 'already-running'> {
  const power = await run.acts.read.vmPowerState.executeWithOptions({ summary: `is VM ${vmid} running?` }, [
    { node, vmid },
  ]);
  if (power.status === 'running') return 'already-running';
  const permit = {
    key: PERMIT_KEYS.vmStart,
    permits: run.settings.limits.vmStart,
    leaseMs: START_LEASE_MS,
    label: `start ${name}`,
  };
  await underPermit(run, permit, () =>
    run.acts.pveTask.startVm.executeWithOptions({ summary: `start VM ${vmid} ${name} on ${node}` }, [{ node, vmid }]),
  );
  return 'started';
}

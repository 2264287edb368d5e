import { PERMIT_KEYS } from '../../../src/domain/permits';
import { withPermit } from '../../permits';
import type { VmBuild } from '../run-context';

const START_LEASE_MS = 30 * 60_000;

/** Starts the Proxmox VM unless it runs, holding a permit of the global VM-start limit. */
export async function bootPveVm({ acts, settings, spec, vmid, node, status, enter, record }: VmBuild): Promise<void> {
  enter('start');
  const power = await acts.read.vmPowerState.executeWithOptions({ summary: `is VM ${vmid} running` }, [{ node, vmid }]);
  if (power.status === 'running') {
    record('start', `VM ${vmid}`, 'unchanged', 'already running');
    return;
  }
  await withPermit(
    {
      key: PERMIT_KEYS.vmStart,
      permits: settings.vmStartPermits,
      leaseMs: START_LEASE_MS,
      label: `start ${spec.name}`,
    },
    async ({ waitedMs }) => {
      status.waits.push({ for: 'VM start permit', waitedMs });
      await acts.vmTask.startVm.executeWithOptions({ summary: `start VM ${vmid} ${spec.name}` }, [{ node, vmid }]);
    },
  );
  record('start', `VM ${vmid}`, 'created', 'started');
}

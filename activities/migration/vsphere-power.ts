import { cancellationSignal } from '@temporalio/activity';
import { clientsOf } from '../clients';
import type { ActivityDeps } from '../deps';
import { beatOperation } from '../heartbeat';
import type { VsphereMigrationActivities } from '../migration-contract';

/** The VMware VM's power: shut down at cutover, powered on again by a rollback. */
export function createVspherePowerActivities(
  deps: ActivityDeps,
): Pick<VsphereMigrationActivities, 'shutdownGuest' | 'powerOnVm'> {
  const { vsphere } = clientsOf(deps);
  return {
    async shutdownGuest({ moid, timeoutMs, force }) {
      const result = await vsphere().shutdownGuest(moid, {
        timeoutMs,
        force,
        onProgress: beatOperation,
        signal: cancellationSignal(),
      });
      const map = {
        'already-off': 'already-off',
        'guest-shutdown': 'shut-down',
        'powered-off': 'powered-off',
      } as const;
      return { result: map[result.outcome] };
    },

    async powerOnVm({ moid }) {
      const result = await vsphere().powerOn(moid, { onProgress: beatOperation, signal: cancellationSignal() });
      return { result: result.outcome };
    },
  };
}

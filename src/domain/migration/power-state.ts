import type { PowerState } from '../inventory';
import { refusal, type Refusal } from './refusal';

/**
 * Rollback restores; it does not guess. The VMware power state is read just before the shutdown and a
 * rollback returns the VM to exactly that state. A suspended VM is refused at cutover: its guest cannot
 * shut itself down, and powering it off would throw away its suspended memory — ferry does not do that
 * on anyone's behalf (not even with `forcePowerOff`, which is about guests that do not shut down in time).
 */

export const SUSPENDED_REASON =
  'it is suspended on VMware: resume it or power it off first, then run the migration again';

/** The refusal for a VM in this power state at cutover, if any. */
export function cutoverPowerRefusal(vmName: string, state: PowerState): Refusal | undefined {
  if (state === 'suspended') return refusal('vm-suspended', vmName, `${vmName} is not cut over: ${SUSPENDED_REASON}`);
  return undefined;
}

/**
 * What a rollback does on VMware: power on a VM that was on; leave off one that was off. A run that
 * recorded no state (started before ferry recorded it) powers on, as ferry did then.
 */
export function rollbackPowerAction(before: PowerState | undefined): 'power-on' | 'leave-off' {
  return before === 'poweredOff' ? 'leave-off' : 'power-on';
}

/** What `plan` and the cutover plan say about a VM's power state before anyone approves. */
export function powerStateWarnings(vmName: string, state: PowerState): string[] {
  if (state === 'suspended') return [`${vmName} is suspended: the cutover will be refused (${SUSPENDED_REASON})`];
  if (state === 'poweredOff')
    return [`${vmName} is powered off: ferry does not shut it down, and a rollback leaves it off`];
  return [];
}

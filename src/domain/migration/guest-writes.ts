import type { CutoverDecision } from './approval';
import type { CutoverMode } from './settings';

/** What the approver of a live-import cutover is told first (PVE warns the same when live-restoring). */
export const LIVE_IMPORT_RISK =
  'live-import: the VM runs on Proxmox while its disks stream in; if the stream fails, what the guest wrote since it started on Proxmox is lost, and a retry or rollback must acknowledge that (--discard-guest-writes)';

/** What the approver of an overlay cutover is told first. */
export const OVERLAY_RISK =
  'overlay: the VM runs on Proxmox from overlays of its VMware disks while they move to their storage; a rollback before the moves finish returns VMware exactly as it was and discards what the guest wrote on Proxmox, so it must acknowledge that (--discard-guest-writes)';

/**
 * The guest has run on Proxmox from a live import this workflow started, or from its overlays: a
 * retry or rollback discards what it wrote there.
 */
export function guestWritesAtRisk(
  mode: CutoverMode | undefined,
  status: { replacedVm?: boolean; ranOnOverlays?: boolean },
): boolean {
  if (mode === 'live-import') return status.replacedVm === true;
  if (mode === 'overlay') return status.ranOnOverlays === true;
  return false;
}

/** Why a retry or rollback is refused for lack of the acknowledgement, or undefined when it may go ahead. */
export function guestWritesProblem(
  kind: 'retry' | 'rollback',
  decision: CutoverDecision,
  atRisk: boolean,
  mode?: CutoverMode,
): string | undefined {
  if (!atRisk || decision.discardGuestWrites === true) return undefined;
  return (
    `a ${kind} after ${mode === 'overlay' ? 'the VM started from its overlays' : 'a failed live import'} discards what the guest wrote since it started on Proxmox; ` +
    `acknowledge it with discardGuestWrites: true (ferry ${kind} … --discard-guest-writes)`
  );
}

import { baselineValue, NO_BASELINE, type Baseline } from './baseline';
import type { AcceptedDrift, ChangeSide } from './change';
import type { FieldKind, FieldValue } from './fields';
import { handDriftFor, type ChangePolicy } from './policy';

/**
 * Which side moved, and what the policy makes of it. NetBox's value is compared with Proxmox's value
 * after the next start (`effective`: pending applied): a value waiting in pending is Proxmox's word.
 * Without a baseline every difference counts as a NetBox edit.
 */

export interface FieldDelta {
  id: string;
  kind: FieldKind;
  slot?: string;
  /** NetBox's value. */
  want: FieldValue;
  /** Proxmox's value as the VM runs. */
  current: FieldValue;
  /** Proxmox's value after the next start. */
  effective: FieldValue;
}

export type Decision =
  | { act: 'none' }
  | { act: 'accept'; drift: AcceptedDrift }
  | { act: 'report'; side: ChangeSide; why: string }
  /** `pendingHoldsIt`: Proxmox already has NetBox's value in pending. */
  | { act: 'apply'; side: ChangeSide; pendingHoldsIt: boolean };

const same = (a: FieldValue, b: FieldValue) => a === b;

export function decide(delta: FieldDelta, baseline: Baseline, policy: ChangePolicy): Decision {
  const { id, kind, want, current, effective } = delta;
  if (same(want, effective)) return same(current, effective) ? { act: 'none' } : apply('netbox', true);
  const kept = baseline.accepted[id];
  const netboxBase = kept ? (kept.netbox ?? undefined) : baseOf(delta, baseline);
  const proxmoxBase = kept ? (kept.proxmox ?? undefined) : netboxBase;
  if (netboxBase === NO_BASELINE || proxmoxBase === NO_BASELINE) return apply('netbox', false);
  const netboxMoved = !same(want, netboxBase);
  const proxmoxMoved = !same(effective, proxmoxBase);
  if (!netboxMoved && !proxmoxMoved) return { act: 'accept', drift: accepted(delta) };
  if (netboxMoved && !proxmoxMoved) return apply('netbox', false);
  if (!netboxMoved) return handDrift(delta, policy, kept !== undefined);
  if (policy.conflict === 'netbox') return apply('both', false);
  return {
    act: 'report',
    side: 'both',
    why: `NetBox and Proxmox both changed ${id} since ferry last applied it (policy change.conflict: report)`,
  };
  function apply(side: ChangeSide, pendingHoldsIt: boolean): Decision {
    return { act: 'apply', side, pendingHoldsIt };
  }
  function accepted(d: FieldDelta): AcceptedDrift {
    return {
      id,
      kind,
      ...(want !== undefined ? { netbox: want } : {}),
      ...(d.effective !== undefined ? { proxmox: d.effective } : {}),
    };
  }
}

/**
 * A field's baseline. A stored baseline lists every disk and NIC ferry left: a slot it does not name
 * was absent then (a disk or NIC added in Proxmox by hand since), not unknown.
 */
function baseOf(delta: FieldDelta, baseline: Baseline): FieldValue | typeof NO_BASELINE {
  const value = baselineValue(baseline, delta.id);
  const presence = delta.kind === 'disk' || delta.kind === 'nic';
  return value === NO_BASELINE && presence && Object.keys(baseline.applied).length > 0 ? undefined : value;
}

function handDrift(delta: FieldDelta, policy: ChangePolicy, wasAccepted: boolean): Decision {
  const choice = handDriftFor(policy, delta.kind);
  const setting = `change.handDrift${policy.handDrift.fields[delta.kind] ? `.fields.${delta.kind}` : '.default'}`;
  if (choice === 'netbox') return { act: 'apply', side: 'proxmox', pendingHoldsIt: false };
  if (choice === 'proxmox')
    return {
      act: 'accept',
      drift: {
        id: delta.id,
        kind: delta.kind,
        ...(delta.want !== undefined ? { netbox: delta.want } : {}),
        ...(delta.effective !== undefined ? { proxmox: delta.effective } : {}),
      },
    };
  const again = wasAccepted ? ' again, after an accepted hand change' : '';
  return {
    act: 'report',
    side: 'proxmox',
    why: `${delta.id} was changed in Proxmox by hand${again}; NetBox did not move (policy ${setting}: report)`,
  };
}

import { baselineValue, NO_BASELINE } from './baseline';
import { RULES, refused, type Verdict } from './context';
import type { Decision, FieldDelta } from './decide';
import { naturalOrder, NIC_FIELDS, nicFieldsOfSpec, nicFieldsOfView, type NicField } from './fields';
import type { IntendedNic } from './intent';
import { onlyPendingDiffers, revertVerdict, type PlanBook } from './plan-book';
import { settleSlot } from './slot-settle';
import type { PlannedChange } from './change';
import type { NicView } from './vm-config';

/**
 * NICs: added, removed, and each managed field of one that stays. What a running VM takes at once
 * follows vmconfig_update_net (PVE/QemuServer.pm), called for every NIC change whatever `hotplug` says:
 * bridge, tag, trunks and firewall re-plug the tap device, rate is set on it, link_down is QMP
 * set_link; model, MAC, queues and MTU need the device itself unplugged and plugged again, which only
 * `network` hotplug allows (else the change waits for the restart).
 */

const PRESENT = 'present';
const STOPPED = 'the VM is stopped: the write applies at once (vmconfig_apply_pending)';
/** Fields the running VM takes on its tap device or through QMP, hotplug or not. */
const TAP_FIELDS: ReadonlySet<NicField> = new Set(['bridge', 'tag', 'trunks', 'firewall', 'rate', 'link_down']);

export function planNics(book: PlanBook, nics: readonly IntendedNic[]): void {
  const { current, effective } = book.ctx.views;
  const slots = new Set([...nics.map((n) => n.slot), ...current.nics.keys(), ...effective.nics.keys()]);
  for (const slot of [...slots].sort(naturalOrder)) {
    const wanted = nics.find((n) => n.slot === slot);
    const delta: FieldDelta = {
      id: slot,
      kind: 'nic',
      slot,
      want: wanted ? PRESENT : undefined,
      current: current.nics.has(slot) ? PRESENT : undefined,
      effective: effective.nics.has(slot) ? PRESENT : undefined,
    };
    book.consider(delta, () => presenceVerdict(book, delta, wanted));
    if (wanted && effective.nics.has(slot))
      planNicFields(book, wanted, effective.nics.get(slot)!, current.nics.get(slot));
  }
}

function presenceVerdict(book: PlanBook, delta: FieldDelta, wanted: IntendedNic | undefined): Verdict {
  if (onlyPendingDiffers(delta)) return revertVerdict({ op: 'revert', keys: [delta.slot!] });
  const operation = wanted
    ? { op: 'add-nic' as const, nic: wanted.nic }
    : { op: 'remove-nic' as const, slot: delta.slot! };
  const what = wanted ? 'added (hot-plugged)' : 'removed (hot-unplugged)';
  if (!book.ctx.running) return { class: 'live', why: STOPPED, rule: RULES.applyPending, operation };
  if (book.ctx.views.current.hotplug.has('network'))
    return {
      class: 'live',
      why: `network hotplug is on: the NIC is ${what}`,
      rule: wanted ? RULES.updateNet : RULES.hotplugPending,
      operation,
    };
  return {
    class: 'at-restart',
    why: `network is not in the VM’s hotplug: the NIC is ${wanted ? 'added' : 'removed'} at the next start`,
    rule: wanted ? RULES.updateNet : RULES.hotplugPending,
    operation,
  };
}

function planNicFields(book: PlanBook, wanted: IntendedNic, next: NicView, now: NicView | undefined): void {
  const want = nicFieldsOfSpec(wanted.nic);
  const after = nicFieldsOfView(next);
  // A NIC only pending (added, not yet plugged) is compared with its pending value alone.
  const before = now ? nicFieldsOfView(now) : after;
  const changes: PlannedChange[] = [];
  for (const field of NIC_FIELDS) {
    // NetBox has no MAC for it, or its bridge is ferry.yaml's default: Proxmox's value stands.
    if ((field === 'mac' && want.mac === undefined) || (field === 'bridge' && !wanted.bridgeFromNetbox)) continue;
    const delta: FieldDelta = {
      id: `${wanted.slot}.${field}`,
      kind: `nic.${field}`,
      slot: wanted.slot,
      want: want[field],
      current: before[field],
      effective: after[field],
    };
    const change = book.consider(delta, (decision) =>
      nicFieldVerdict(book, delta, decision, { field, model: next.model, plugged: now !== undefined }),
    );
    if (change) changes.push(change);
  }
  settleSlot(wanted.slot, changes, now ? pendingNicFields(now, next) : [], 'NIC');
}

interface NicFieldFacts {
  field: NicField;
  model: string;
  /** The NIC is in the running config (not only pending). */
  plugged: boolean;
}

function nicFieldVerdict(
  book: PlanBook,
  delta: FieldDelta,
  decision: Extract<Decision, { act: 'apply' }>,
  facts: NicFieldFacts,
): Verdict {
  const operation = {
    op: 'set-nic-field' as const,
    slot: delta.slot!,
    field: facts.field,
    ...(delta.want !== undefined ? { value: delta.want } : {}),
  };
  if (onlyPendingDiffers(delta)) return revertVerdict(operation);
  const refusal = facts.field === 'mac' ? macRefusal(book, delta, decision) : optionRefusal(facts, delta.want);
  if (refusal) return refusal;
  if (!book.ctx.running) return { class: 'live', why: STOPPED, rule: RULES.applyPending, operation };
  if (!facts.plugged)
    return {
      class: 'at-restart',
      why: `${delta.slot} is itself pending (not plugged yet): it changes at the next start`,
      rule: RULES.hotplugPending,
      operation,
    };
  if (TAP_FIELDS.has(facts.field)) return { class: 'live', why: tapWhy(facts.field), rule: RULES.updateNet, operation };
  if (book.ctx.views.current.hotplug.has('network'))
    return {
      class: 'live',
      why: `network hotplug is on: ${delta.slot} is hot-unplugged and plugged again (the guest sees its NIC go and come back)`,
      rule: RULES.updateNet,
      operation,
    };
  return {
    class: 'at-restart',
    why: `a ${facts.field} change re-plugs the NIC, and network is not in the VM’s hotplug: it waits for the next start`,
    rule: RULES.updateNet,
    operation,
  };
}

function tapWhy(field: NicField): string {
  if (field === 'rate') return 'the rate limit is set on the running tap device';
  if (field === 'link_down') return 'the link is set up or down through QMP (set_link)';
  const notify =
    field === 'bridge' || field === 'tag' ? '; the link goes down and up so the guest renews its address' : '';
  return `the tap device is re-plugged with the new ${field}, the MAC kept${notify}`;
}

/** MTU and queues: what Proxmox would refuse or ignore (print_netdevice_full). */
function optionRefusal(facts: NicFieldFacts, want: string | undefined): Verdict | undefined {
  if (want === undefined || (facts.field !== 'mtu' && facts.field !== 'queues')) return undefined;
  if (facts.model !== 'virtio')
    return refused(`Proxmox applies ${facts.field} to virtio NICs only; this NIC is ${facts.model}`, RULES.netdevice);
  const mtu = Number(want);
  if (facts.field === 'mtu' && mtu !== 1 && mtu < 576)
    return refused(
      `MTU ${mtu} is below the IP minimum of 576 (1 means the bridge's MTU): the VM would not start`,
      RULES.netdevice,
    );
  return undefined;
}

/** A MAC changes only when NetBox's own MAC changed and the policy allows it: the guest sees a new NIC. */
function macRefusal(
  book: PlanBook,
  delta: FieldDelta,
  decision: Extract<Decision, { act: 'apply' }>,
): Verdict | undefined {
  const unknown = baselineValue(book.ctx.baseline, delta.id) === NO_BASELINE && !book.ctx.baseline.accepted[delta.id];
  if (unknown)
    return refused(
      `ferry has no record of the MAC it applied, so it cannot tell whether NetBox's MAC changed; a new MAC gives the guest a new NIC: make NetBox and Proxmox agree (${delta.effective ?? 'none'} in Proxmox)`,
      RULES.policy,
    );
  if (decision.side === 'proxmox')
    return refused(
      'the MAC was changed in Proxmox by hand; ferry does not change a MAC back (the guest would see a new NIC)',
      RULES.policy,
    );
  if (!book.ctx.policy.allowMacChange)
    return refused(
      `NetBox's MAC changed to ${delta.want ?? 'none'}; a new MAC gives the guest a new NIC: set change.allowMacChange to let ferry make it`,
      RULES.policy,
    );
  return undefined;
}

/** The fields (`net0.mtu`) and other options (`net0.model`) in which a NIC's pending value differs from its current one. */
function pendingNicFields(now: NicView, next: NicView): string[] {
  const before = nicFieldsOfView(now);
  const after = nicFieldsOfView(next);
  const managed = NIC_FIELDS.filter((f) => before[f] !== after[f]);
  const optionKeys = new Set([...Object.keys(now.options), ...Object.keys(next.options)]);
  const others = [...optionKeys].filter(
    (k) => !(NIC_FIELDS as readonly string[]).includes(k) && now.options[k] !== next.options[k],
  );
  return [...managed, ...(now.model !== next.model ? ['model'] : []), ...others].map((f) => `${now.slot}.${f}`);
}

import { formatChangeValue, type DriftItem, type DriftReport, type VmDrift } from '../src/domain/change';

/**
 * How a person reads a drift report (`ferry drift`): one block per VM that drifts, by direction (NetBox
 * edits Proxmox does not have yet; changes made by hand in Proxmox), refusals with their reasons, the VMs
 * that could not be read, and a summary line.
 */

/** VMs that drift, including those the report left out to stay within its size. */
export function driftCount(report: DriftReport): number {
  return report.drifting.length + (report.truncated ?? 0);
}

/** Exit 1 when something drifts or could not be read (the report then cannot say all is well), else 0. */
export function driftExitCode(report: DriftReport): 0 | 1 {
  return driftCount(report) > 0 || report.unreadable.length > 0 ? 1 : 0;
}

export function driftSummary(report: DriftReport): string {
  const where = `cluster ${report.cluster}${report.tag ? `, tag ${report.tag}` : ''}`;
  return `${report.read} VM(s) read, ${driftCount(report)} drift, ${report.unreadable.length} unreadable (${where})`;
}

export function renderDriftReport(report: DriftReport): string[] {
  const lines = report.drifting.flatMap(vmBlock);
  if (report.truncated)
    lines.push(
      `… and ${report.truncated} more VM(s) that drift, left out to keep the report small (ferry plan --change)`,
    );
  if (report.unreadable.length) {
    lines.push('could not be read:');
    for (const u of report.unreadable)
      lines.push(`  ${u.name} (NetBox VM ${u.netboxId}${u.vmid !== undefined ? `, VM ${u.vmid}` : ''}): ${u.reason}`);
  }
  lines.push(driftSummary(report));
  return lines;
}

function vmBlock(vm: VmDrift): string[] {
  const where = vm.node ? ` on ${vm.node}${vm.power ? `, ${vm.power}` : ''}` : '';
  const lines = [`${vm.name} (NetBox VM ${vm.netboxId}, VM ${vm.vmid}${where}):`];
  if (vm.problems?.length)
    lines.push('  cannot be planned (the record does not translate into a VM):', ...vm.problems.map((p) => `    ${p}`));
  if (vm.toProxmox.length)
    lines.push('  NetBox → Proxmox (edited in NetBox, not in Proxmox yet):', ...vm.toProxmox.map(netboxLine));
  if (vm.byHand.length) lines.push('  changed by hand in Proxmox:', ...vm.byHand.map(handLine));
  if (vm.refused.length) lines.push('  refused (ferry would not change these):', ...vm.refused.map(refusedLine));
  return lines;
}

const value = (item: DriftItem, v: string | undefined) => formatChangeValue(item.kind, v);

/** Proxmox's value now, and what waits for its next start. */
function proxmoxValue(item: DriftItem): string {
  const pending = item.pendingDelete
    ? ' (pending: removed)'
    : item.pending !== undefined
      ? ` (pending: ${value(item, item.pending)})`
      : '';
  return `${value(item, item.from)}${pending}`;
}

/** `memory: 2048 MiB → 3072 MiB [live]`: Proxmox's value, then NetBox's. */
function netboxLine(item: DriftItem): string {
  return `    ${item.id}: ${proxmoxValue(item)} → ${value(item, item.to)} [${item.class}]`;
}

/** `net0.rate: Proxmox 10 MB/s, NetBox none [reported]`: the hand change first. */
function handLine(item: DriftItem): string {
  const both = item.side === 'both' ? ', NetBox changed too' : '';
  return `    ${item.id}: Proxmox ${proxmoxValue(item)}, NetBox ${value(item, item.to)} [${item.class}${both}]`;
}

function refusedLine(item: DriftItem): string {
  return `    ${item.id}: Proxmox ${proxmoxValue(item)}, NetBox ${value(item, item.to)}: ${item.reason ?? 'refused'}`;
}

import { formatBytes, type Placement } from '../../src/domain/placement';

/** One VM's line: `placed on pve2: Hard disk 1 → local-lvm, Hard disk 2 → nfs-images`. */
export function placedLine(placement: Placement | undefined, moid: string): string | undefined {
  const placed = placement?.placed.find((p) => p.moid === moid);
  if (!placed) return undefined;
  const disks = placed.disks.map((d) => `${d.label} → ${d.storage}`).join(', ');
  return `placed on ${placed.node}${disks ? `: ${disks}` : ''}`;
}

/** The totals per node, storage and the migration datastore, before and after the wave. */
export function placementTotals(placement: Placement): string[] {
  const lines = ['', `Placement${placement.ok ? '' : ' (does not fit)'}:`];
  for (const w of placement.waveRefusals) lines.push(`  REFUSED: ${w.reason}`);
  lines.push('  nodes (memory committed before → after / limit):');
  for (const n of placement.nodes) {
    const state = !n.online ? ' (offline)' : !n.usable ? ' (not used)' : '';
    const vms = n.vms.length ? `  ${n.vms.join(', ')}` : '';
    lines.push(
      `    ${n.node}${state}: ${formatBytes(n.committedBeforeBytes, 'up')} → ${formatBytes(n.committedAfterBytes, 'up')} / ${formatBytes(n.limitBytes, 'down')}${vms}`,
    );
  }
  lines.push('  storages (free before → after):');
  for (const s of placement.storages) {
    const where = s.node ? ` on ${s.node}` : ' (shared)';
    lines.push(
      `    ${s.storage}${where}: ${formatBytes(s.availBeforeBytes, 'down')} → ${formatBytes(s.availAfterBytes, 'down')} (${formatBytes(s.placedBytes, 'up')} placed)`,
    );
  }
  const d = placement.migrationDatastore;
  if (d) {
    lines.push(
      `  migration datastore ${d.name}: ${formatBytes(d.needBytes, 'up')} to move, ${formatBytes(d.roomBytes, 'down')} room (${formatBytes(d.freeBytes, 'down')} free, ${formatBytes(d.headroomBytes, 'up')} kept free)`,
    );
  }
  for (const note of placement.notes) lines.push(`  note: ${note}`);
  return lines;
}

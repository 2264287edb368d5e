import { formatBytes } from '../src/domain/placement/units';
import type { PlacementMoveRecord, VmPlacement } from '../src/domain/placement';

/** `pve2; Hard disk 1 → local-lvm, Hard disk 2 → nfs-images; memory on pve2 after: 40 GiB of 64 GiB` */
export function describePlacement(p: VmPlacement): string {
  const disks = p.disks.map((d) => `${d.label} → ${d.storage}`).join(', ');
  const memory = p.memory
    ? `; memory committed on ${p.node} after: ${formatBytes(p.memory.committedAfterBytes, 'up')} of ${formatBytes(p.memory.limitBytes, 'down')}`
    : '';
  return `${p.node}${disks ? `; ${disks}` : ''}${memory}`;
}

/** The status lines of a VM's placement and its `ferry place` moves (none for other workflows). */
export function renderPlacement(s: Record<string, unknown>): string[] {
  const placement = s.placement as VmPlacement | undefined;
  if (!placement || typeof placement.node !== 'string') return [];
  const lines = [`  placement: ${describePlacement(placement)}`];
  for (const m of (s.placementMoves as PlacementMoveRecord[] | undefined) ?? []) {
    lines.push(
      `  placed by ${m.by}: ${m.reason} (${m.from.node} → ${m.to.node}${m.shellMoved ? ', shell re-created' : ''})`,
    );
  }
  return lines;
}

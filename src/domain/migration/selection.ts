import type { VmRecord } from '../inventory';

/** Which VMs a wave (or a plan) takes: every given criterion must hold. */
export interface WaveSelection {
  /** VM names (exact). */
  names?: string[];
  /** Inventory folder path, e.g. `/DC0/vm/apps` (VMs below it). */
  folder?: string;
  /** Cluster name. */
  cluster?: string;
  /** vSphere tag (`name` or `category/name`). */
  tag?: string;
}

/**
 * The VMs a selection takes, in inventory order, and the names it asks for that no VM has. `tagged`
 * holds the moids carrying the selection's tag (vCenter answers that; it is not on the VM record).
 */
export function selectVms(
  vms: readonly VmRecord[],
  selection: WaveSelection,
  tagged?: ReadonlySet<string>,
): { vms: VmRecord[]; missingNames: string[] } {
  const { names, folder, cluster } = selection;
  const selected = vms.filter(
    (vm) =>
      (!tagged || tagged.has(vm.moid)) &&
      (!names || names.includes(vm.name)) &&
      (!folder || vm.folder === folder || vm.folder?.startsWith(`${folder}/`) === true) &&
      (!cluster || vm.cluster?.name === cluster),
  );
  const missingNames = (names ?? []).filter((name) => !selected.some((vm) => vm.name === name));
  return { vms: selected, missingNames };
}

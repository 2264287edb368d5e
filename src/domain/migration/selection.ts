import type { VmRecord } from '../inventory';

/** Which VMs a wave (or a plan) takes: every given criterion must hold. */
export interface WaveSelection {
  /**
   * VMs, each by its name (exact), its moid (`vm-123`) or its inventory path (`/DC0/vm/apps/web01`):
   * vCenter keeps names unique only within a folder, so a name two VMs share is refused, not guessed.
   */
  names?: string[];
  /** Inventory folder path, e.g. `/DC0/vm/apps` (VMs below it). */
  folder?: string;
  /** Cluster name. */
  cluster?: string;
  /** vSphere tag (`name` or `category/name`). */
  tag?: string;
}

/** A VM a name could mean: where it is and its moid, so a person can pick one. */
export interface SelectionCandidate {
  name: string;
  moid: string;
  folder?: string;
}

/** A name entry that more than one VM answers to. */
export interface AmbiguousName {
  name: string;
  candidates: SelectionCandidate[];
}

/** The VM's inventory path (`/DC0/vm/apps/web01`), when its folder is known. */
function vmInventoryPath(vm: Pick<VmRecord, 'name' | 'folder'>): string | undefined {
  return vm.folder === undefined ? undefined : `${vm.folder}/${vm.name}`;
}

/** Does this VM answer to a names entry: its name, its moid or its inventory path? */
function answersTo(vm: VmRecord, entry: string): boolean {
  return vm.name === entry || vm.moid === entry || vmInventoryPath(vm) === entry;
}

/**
 * The VMs a selection takes, in inventory order; the names entries no VM answers to, and those
 * several VMs answer to (with each candidate's folder and moid). `tagged` holds the moids carrying the
 * selection's tag (vCenter answers that; it is not on the VM record).
 */
export function selectVms(
  vms: readonly VmRecord[],
  selection: WaveSelection,
  tagged?: ReadonlySet<string>,
): { vms: VmRecord[]; missingNames: string[]; ambiguousNames: AmbiguousName[] } {
  const { names, cluster } = selection;
  const folder = selection.folder?.replace(/\/+$/, '');
  const selected = vms.filter(
    (vm) =>
      (!tagged || tagged.has(vm.moid)) &&
      (!names || names.some((entry) => answersTo(vm, entry))) &&
      (!folder || vm.folder === folder || vm.folder?.startsWith(`${folder}/`) === true) &&
      (!cluster || vm.cluster?.name === cluster),
  );
  const missingNames: string[] = [];
  const ambiguousNames: AmbiguousName[] = [];
  for (const entry of names ?? []) {
    const matches = selected.filter((vm) => answersTo(vm, entry));
    if (matches.length === 0) missingNames.push(entry);
    if (matches.length > 1)
      ambiguousNames.push({
        name: entry,
        candidates: matches.map((vm) => ({
          name: vm.name,
          moid: vm.moid,
          ...(vm.folder ? { folder: vm.folder } : {}),
        })),
      });
  }
  return { vms: selected, missingNames, ambiguousNames };
}

/**
 * A name several VMs answer to, as a sentence a person can act on: each candidate's folder and moid,
 * and how to name one of them.
 */
export function ambiguousNameMessage({ name, candidates }: AmbiguousName): string {
  const listed = candidates.map((c) => `${c.moid} in ${c.folder ?? 'an unknown folder'}`).join(', ');
  const first = candidates[0]!;
  const path = first.folder ? ` or by inventory path (${first.folder}/${first.name})` : '';
  return `"${name}" names ${candidates.length} VMs: ${listed}; name the one to migrate by moid (${first.moid})${path}`;
}

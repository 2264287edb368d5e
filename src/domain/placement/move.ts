import { compareCodeUnits } from '../order';
import type { CutoverDecision } from '../migration/approval';
import { recheckAtCutover } from './recheck';
import { memoryLimit } from './capacity';
import { DEFAULT_MAX_MEMORY_COMMIT } from './place';
import type { PlacementNode, PlacementRefusal, PlacementStorage, PlacementVm } from './types';
import type { VmPlacement } from './vm-settings';

/** `ferry place <vm> --node N [--storage S] --by WHO --reason WHY`: move a waiting VM's shell. */
export interface PlaceRequest extends CutoverDecision {
  node: string;
  /** Every disk onto this storage; absent: each disk keeps the storage placement chose. */
  storage?: string;
}

/** An accepted `ferry place`, as the VM's status keeps it. */
export interface PlacementMoveRecord {
  by: string;
  reason: string;
  at: number;
  from: VmPlacement;
  to: VmPlacement;
  /** The shell existed and was re-created on the new node (else the shell stage builds it there). */
  shellMoved: boolean;
}

/** The stages before the shell exists: a move only changes where it will be built. */
export const STAGES_BEFORE_SHELL: readonly string[] = ['validate', 'networks'];

/**
 * Why a `ferry place` cannot be taken now, before any capacity is read, or undefined. A VM can move
 * while it waits before its cutover: before its shell exists, or at the approval gate (not yet decided).
 */
export function placeStageProblem(
  stage: string,
  state: { decided: boolean; moving: boolean; known: boolean },
): string | undefined {
  if (state.moving) return 'another placement move of this VM is under way; try again once it is done';
  if (STAGES_BEFORE_SHELL.includes(stage))
    return state.known ? undefined : 'the VM is not read from vCenter yet; try again in a moment';
  if (stage === 'awaiting-approval')
    return state.decided ? 'the cutover is already decided (approved or rejected); its placement is fixed' : undefined;
  if (stage === 'shell') return 'the shell is being built right now; place the VM once it waits for approval';
  if (stage === 'relocate')
    return 'its disks are moving onto the migration datastore (storage vMotion); place the VM once it waits for approval';
  return `the VM no longer waits before its cutover (stage ${stage}); its placement is fixed`;
}

export interface MoveCheckInput {
  vm: Pick<PlacementVm, 'name' | 'memoryBytes' | 'cpus' | 'disks'>;
  /** Where the VM is placed now (the shell's node, each disk's storage). */
  from: VmPlacement;
  request: Pick<PlaceRequest, 'node' | 'storage'>;
  /** Read just now, with this VM's own shell left out of every node's committed memory. */
  nodes: PlacementNode[];
  storages: PlacementStorage[];
  /** `migration.nodes`, when configured. */
  allowedNodes?: string[];
  maxMemoryCommit?: number;
}

export type MoveCheck = { ok: true; to: VmPlacement } | { ok: false; refusals: PlacementRefusal[] };

/**
 * Can the VM go to the requested node (and storage)? The node must be a known, online node (of
 * `migration.nodes` when set) and hold it: the same capacity rules as the cutover's re-check, against
 * capacity read just before the move. A move to where it is already is refused (nothing to do).
 */
export function checkMove(input: MoveCheckInput): MoveCheck {
  const { vm, from, request } = input;
  const refuse = (reason: string, resource?: string): MoveCheck => ({
    ok: false,
    refusals: [{ code: 'placement-node-unavailable', subject: vm.name, reason, ...(resource ? { resource } : {}) }],
  });
  const node = input.nodes.find((n) => n.name === request.node);
  const names = input.nodes.map((n) => n.name).sort(compareCodeUnits);
  if (!node) return refuse(`${request.node} is not a node of the cluster (nodes: ${names.join(', ')})`, request.node);
  if (!node.online) return refuse(`${request.node} is offline`, request.node);
  if (input.allowedNodes && !input.allowedNodes.includes(request.node)) {
    return refuse(
      `${request.node} is not in migration.nodes (${[...input.allowedNodes].sort(compareCodeUnits).join(', ')})`,
      request.node,
    );
  }
  const disks = from.disks.map((d) => ({ label: d.label, storage: request.storage ?? d.storage }));
  const to: VmPlacement = { node: request.node, disks };
  if (to.node === from.node && disks.every((d, i) => d.storage === from.disks[i]?.storage)) {
    return refuse(
      `${vm.name} is already on ${from.node}${request.storage ? ` with every disk on ${request.storage}` : ''}`,
    );
  }
  const checked = recheckAtCutover({
    vm,
    placed: {
      node: to.node,
      disks: disks.map((d) => {
        const capacityBytes = vm.disks.find((v) => v.label === d.label)?.capacityBytes ?? 0;
        return {
          label: d.label,
          datastore: '',
          capacityBytes,
          storage: d.storage,
          storageBy: request.storage ? 'ferry place --storage' : 'placement',
        };
      }),
    },
    nodes: input.nodes,
    storages: input.storages,
    maxMemoryCommit: input.maxMemoryCommit,
    shellOnNode: false,
  });
  if (!checked.ok) return checked;
  const ratio = input.maxMemoryCommit ?? DEFAULT_MAX_MEMORY_COMMIT;
  return {
    ok: true,
    to: {
      ...to,
      memory: {
        committedAfterBytes: node.committedBytes + vm.memoryBytes,
        limitBytes: memoryLimit(node, ratio),
        memoryBytes: node.memoryBytes,
      },
    },
  };
}

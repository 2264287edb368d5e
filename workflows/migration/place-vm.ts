import { ApplicationFailure, proxyActivities, setHandler } from '@temporalio/workflow';
import type { ShellMoveActivities } from '../../activities/placement/contract';
import { decisionProblem } from '../../src/domain/migration';
import {
  checkMove,
  placeStageProblem,
  placementOfSettings,
  placementVm,
  STAGES_BEFORE_SHELL,
  type PlaceRequest,
  type VmPlacement,
} from '../../src/domain/placement';
import { placeVmUpdate } from '../../src/domain/messages';
import { workflowNow } from '../clock';
import { failureMessage } from '../failures';
import { placementReads } from '../wave/placement-reads';
import { buildShell } from './stages/shell';
import type { MigrationRun } from './run-context';

/** The failure type of a `ferry place` the target node or storage cannot take. */
export const PLACEMENT_MOVE_REFUSED = 'PlacementMoveRefused';

const shellMoves = proxyActivities<ShellMoveActivities>({
  startToCloseTimeout: '5m',
  retry: { initialInterval: '2s', backoffCoefficient: 2, maximumInterval: '1m', maximumAttempts: 10 },
});

/**
 * `ferry place`: a validated update, taken while the VM waits before its cutover (before its shell
 * exists, or at the approval gate). Capacity is read by an activity and checked with placement's own
 * rules; a node or storage that cannot hold the VM refuses the move with the numbers. Accepted, the
 * shell (if built) is destroyed on the old node and built again on the new one; the shell stage and the
 * approval wait for the move (run.placing).
 */
export function handlePlacementMoves(run: MigrationRun): void {
  setHandler(
    placeVmUpdate,
    async (request) => {
      run.placing = true;
      try {
        await moveVm(run, request);
      } finally {
        run.placing = false;
      }
      return run.status;
    },
    {
      validator: (request) => {
        const problem =
          decisionProblem(request, run.settings.approvers) ??
          (typeof request.node !== 'string' || request.node.trim() === ''
            ? 'say where: "node" is required'
            : undefined) ??
          (request.storage !== undefined && (typeof request.storage !== 'string' || request.storage.trim() === '')
            ? '"storage", when given, names a storage'
            : undefined) ??
          placeStageProblem(run.status.stage, {
            decided: run.gate.decided,
            moving: run.placing,
            known: snapshotOf(run) !== undefined,
          });
        if (problem) throw new Error(problem);
      },
    },
  );
}

function snapshotOf(run: MigrationRun) {
  return run.plannedVm?.snapshot ?? run.input.snapshot;
}

async function moveVm(run: MigrationRun, request: PlaceRequest): Promise<void> {
  const vm = placementVm(snapshotOf(run)!.vm);
  const vmid = run.plannedVm?.vmid;
  const from =
    run.status.placement ??
    placementOfSettings(
      run.settings,
      vm.disks.map((d) => d.label),
    );
  const { placement } = run.settings;
  const capacity = await placementReads.readClusterCapacity.executeWithOptions(
    { summary: `read Proxmox capacity for ferry place ${vm.name} --node ${request.node}` },
    [{ exclude: vmid !== undefined ? [vmid] : [] }],
  );
  const checked = checkMove({
    vm,
    from,
    request,
    nodes: capacity.nodes,
    storages: capacity.storages,
    allowedNodes: placement?.nodes,
    maxMemoryCommit: placement?.maxMemoryCommit,
  });
  if (!checked.ok) {
    throw ApplicationFailure.nonRetryable(
      `${vm.name} cannot move to ${request.node}: ${checked.refusals.map((r) => r.reason).join('; ')}`,
      PLACEMENT_MOVE_REFUSED,
    );
  }
  // The shell stage waits for this move before it begins: no timing for it yet means nothing is built.
  const shellBuilt =
    !STAGES_BEFORE_SHELL.includes(run.status.stage) && run.status.timings.some((t) => t.stage === 'shell');
  if (shellBuilt) await rebuildShell(run, from, checked.to);
  else run.placeAt(checked.to);
  run.status.placementMoves = [
    ...(run.status.placementMoves ?? []),
    { by: request.by, reason: request.reason, at: workflowNow(), from, to: checked.to, shellMoved: shellBuilt },
  ];
}

/** The old shell goes, the new one is built on the new node with the same VMID, NICs and MACs. */
async function rebuildShell(run: MigrationRun, from: VmPlacement, to: VmPlacement): Promise<void> {
  const { assessment, vmid } = run.vm;
  const vm = assessment.pveName;
  const { destroyed } = await shellMoves.destroyVmShell.executeWithOptions(
    { summary: `ferry place: destroy shell VM ${vmid} ${vm} on ${from.node}` },
    [{ node: from.node, vmid, name: vm }],
  );
  if (destroyed) run.record({ kind: 'remove-shell', vm, vmid });
  // From here the VM belongs on the new node: a failure leaves no shell, and the cutover must not start.
  run.placeAt(to);
  try {
    await buildShell(run, true, 'ferry place: ');
    run.placeFailure = undefined;
  } catch (err) {
    run.placeFailure = `ferry place destroyed the shell on ${from.node} but could not build it on ${to.node}: ${failureMessage(err)}`;
    throw err;
  }
}

import { ApplicationFailure, condition, setHandler } from '@temporalio/workflow';
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
import type { MigrationRun } from './run-context';
import { buildShell } from './stages/shell';

/** The failure type of a `ferry place` the target node or storage cannot take. */
export const PLACEMENT_MOVE_REFUSED = 'PlacementMoveRefused';

/**
 * `ferry place`: a validated update, taken while the VM waits before its cutover (before its shell
 * exists, or at the approval gate). Capacity is read by an activity and checked with placement's own
 * rules; a node or storage that cannot hold the VM refuses the move with the numbers. Accepted, the
 * shell (if built) is destroyed on the old node and built again on the new one; the shell step and the
 * cutover wait for a move under way (`settled`).
 */
export class PlacementMoves {
  /** A move is under way. */
  private moving = false;
  /** A move destroyed the old shell and could not build the new one: the run cannot cut over. */
  private failure?: string;

  constructor(private readonly run: MigrationRun) {
    setHandler(
      placeVmUpdate,
      async (request) => {
        this.moving = true;
        try {
          await this.move(request);
        } finally {
          this.moving = false;
        }
        return run.status;
      },
      { validator: (request) => this.refuseInvalid(request) },
    );
  }

  /** Waits for a move under way; fails the run if a move left it without a shell. */
  async settled(): Promise<void> {
    await condition(() => !this.moving);
    if (this.failure) throw ApplicationFailure.nonRetryable(this.failure, 'PlacementMoveFailed');
  }

  private refuseInvalid(request: PlaceRequest): void {
    const { run } = this;
    const problem =
      decisionProblem(request, run.settings.approvers) ??
      (typeof request.node !== 'string' || request.node.trim() === '' ? 'say where: "node" is required' : undefined) ??
      (request.storage !== undefined && (typeof request.storage !== 'string' || request.storage.trim() === '')
        ? '"storage", when given, names a storage'
        : undefined) ??
      placeStageProblem(run.status.stage, {
        decided: run.gate.decided,
        moving: this.moving,
        known: this.snapshot() !== undefined,
      });
    if (problem) throw new Error(problem);
  }

  private snapshot() {
    return this.run.plannedVm?.snapshot ?? this.run.input.snapshot;
  }

  private async move(request: PlaceRequest): Promise<void> {
    const { run } = this;
    const vm = placementVm(this.snapshot()!.vm);
    const vmid = run.plannedVm?.vmid;
    const from =
      run.status.placement ??
      placementOfSettings(
        run.settings,
        vm.disks.map((d) => d.label),
      );
    const capacity = await run.acts.read.readClusterCapacity.executeWithOptions(
      { summary: `read Proxmox capacity for ferry place ${vm.name} --node ${request.node}` },
      [{ exclude: vmid !== undefined ? [vmid] : [] }],
    );
    const { placement } = run.settings;
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
      const why = checked.refusals.map((r) => r.reason).join('; ');
      throw ApplicationFailure.nonRetryable(
        `${vm.name} cannot move to ${request.node}: ${why}`,
        PLACEMENT_MOVE_REFUSED,
      );
    }
    // The shell step waits for this move before it begins: no timing for it yet means nothing is built.
    const shellBuilt =
      !STAGES_BEFORE_SHELL.includes(run.status.stage) && run.status.timings.some((t) => t.stage === 'shell');
    if (shellBuilt) await this.rebuildShell(from, checked.to);
    else run.placeAt(checked.to);
    const moved = {
      by: request.by,
      reason: request.reason,
      at: workflowNow(),
      from,
      to: checked.to,
      shellMoved: shellBuilt,
    };
    run.status.placementMoves = [...(run.status.placementMoves ?? []), moved];
  }

  /** The old shell goes, the new one is built on the new node with the same VMID, NICs and MACs. */
  private async rebuildShell(from: VmPlacement, to: VmPlacement): Promise<void> {
    const { run } = this;
    const { assessment, vmid } = run.vm;
    const vm = assessment.pveName;
    const { destroyed } = await run.acts.pveTask.destroyVmShell.executeWithOptions(
      { summary: `ferry place: destroy shell VM ${vmid} ${vm} on ${from.node}` },
      [{ node: from.node, vmid, name: vm }],
    );
    if (destroyed) run.record({ kind: 'remove-shell', vm, vmid });
    // From here the VM belongs on the new node: a failure leaves no shell, and the cutover must not start.
    run.placeAt(to);
    try {
      await buildShell(run, true, 'ferry place: ');
      this.failure = undefined;
    } catch (err) {
      this.failure = `ferry place destroyed the shell on ${from.node} but could not build it on ${to.node}: ${failureMessage(err)}`;
      throw err;
    }
  }
}

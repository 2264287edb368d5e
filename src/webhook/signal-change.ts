import { isGrpcDeadlineError, isGrpcServiceError, type Client } from '@temporalio/client';
import { CHANGE_VM_WORKFLOW_TYPE, type NetboxEdit } from '../domain/change-vm';
import { netboxEditedSignal, type ChangeVmWorkflow } from '../domain/messages';
import type { ChangeDecision } from '../domain/netbox-events';
import { FerryKind, VmId } from '../domain/search-attributes';
import { isTransportFailure, transportReason } from '../temporal/connection';

/** gRPC's UNAVAILABLE status code (the server did not answer, or refused the connection). */
const GRPC_UNAVAILABLE = 14;

type SignalDecision = Extract<ChangeDecision, { kind: 'signal' }>;

/** Temporal did not take the signal: not reachable, or no answer in time. The receiver answers 503. */
export class TemporalUnavailable extends Error {
  override name = 'TemporalUnavailable';
}

/** How long one signal-with-start may take, retries included: NetBox waits 10 s for an answer by default. */
export const SIGNAL_DEADLINE_MS = 5_000;

/**
 * Signals the VM's `changeVm`, starting it first when it does not run (Temporal's signal-with-start: one
 * atomic call, so a burst of edits lands on one workflow, and a closed run is followed by a new one).
 * Resolves once Temporal has recorded the signal.
 */
export async function signalChangeVm(
  client: Client,
  taskQueue: string,
  decision: SignalDecision,
  deadlineMs = SIGNAL_DEADLINE_MS,
): Promise<{ runId: string }> {
  const { workflowId, start, edit } = decision;
  try {
    const handle = await client.connection.withDeadline(Date.now() + deadlineMs, () =>
      client.workflow.signalWithStart<ChangeVmWorkflow, [NetboxEdit]>(CHANGE_VM_WORKFLOW_TYPE, {
        workflowId,
        taskQueue,
        args: [start],
        signal: netboxEditedSignal,
        signalArgs: [edit],
        typedSearchAttributes: [
          { key: FerryKind, value: 'change' },
          { key: VmId, value: start.vmid },
        ],
        staticSummary: `change VM ${start.vmid} to match NetBox VM ${start.netboxId}`,
      }),
    );
    return { runId: handle.signaledRunId };
  } catch (err) {
    if (unavailable(err))
      throw new TemporalUnavailable(`Temporal did not take the signal: ${reason(err)}`, { cause: err });
    throw err;
  }
}

function unavailable(err: unknown): boolean {
  if (isGrpcDeadlineError(err) || isTransportFailure(err)) return true;
  const grpc = isGrpcServiceError(err) ? err : (err as { cause?: unknown })?.cause;
  return isGrpcServiceError(grpc) && grpc.code === GRPC_UNAVAILABLE;
}

function reason(err: unknown): string {
  if (isGrpcDeadlineError(err)) return `no answer within ${SIGNAL_DEADLINE_MS / 1000} s`;
  const cause = (err as { cause?: unknown })?.cause;
  return transportReason(cause ?? err);
}

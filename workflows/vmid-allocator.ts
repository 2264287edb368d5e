import {
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  condition,
  continueAsNew,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import {
  allocate,
  type Allocation,
  type AllocatorState,
  VMID_RANGE_EXHAUSTED,
  VMID_READ_FAILED,
  type VmidRequest,
} from '../src/domain/provisioning';
import { PVE_VMID_MAX, PVE_VMID_MIN } from '../src/domain/vmid';
import { FerryKind, FerryStage } from '../src/domain/search-attributes';
import { workflowNow } from './clock';
import { failureMessage } from './failures';
import { allocateVmidUpdate, vmidAllocatorStatusQuery, type VmidAllocatorInput } from '../src/domain/messages';
import { reads } from './vm/proxies';

interface QueuedRequest {
  id: string;
  request: VmidRequest;
}

/**
 * A failed read is not an answer about the range: those requests may try again, unless the read failed
 * for a reason asking again cannot fix (TLS, credentials, permission, an answer ferry cannot read).
 */
type Answer = Allocation | { readFailed: string; final: boolean; category?: string };

/**
 * The single writer of VMIDs for records that have none. Provisions reach it with update-with-start
 * (`allocateVmid`); requests are answered one batch at a time, each batch against a fresh read of the
 * VMIDs Proxmox and NetBox use plus those handed out and not yet in use, so two provisions never get
 * the same VMID however many run at once.
 */
export async function vmidAllocator(input: VmidAllocatorInput = {}): Promise<void> {
  const state: AllocatorState = input.carried ?? { reservations: [], allocated: 0 };
  const queue: QueuedRequest[] = [];
  const answers = new Map<string, Answer>();

  upsertSearchAttributes([
    { key: FerryKind, value: 'vmid-allocator' },
    { key: FerryStage, value: 'serving' },
  ]);
  setHandler(vmidAllocatorStatusQuery, () => state);
  setHandler(
    allocateVmidUpdate,
    async (request) => {
      const id = uuid4();
      queue.push({ id, request });
      await condition(() => answers.has(id));
      const answer = answers.get(id)!;
      answers.delete(id);
      if ('readFailed' in answer) {
        throw ApplicationFailure.create({
          type: VMID_READ_FAILED,
          message: answer.readFailed,
          nonRetryable: answer.final,
          details: answer.category ? [{ category: answer.category }] : [],
        });
      }
      if ('error' in answer)
        throw ApplicationFailure.create({ type: VMID_RANGE_EXHAUSTED, message: answer.error, nonRetryable: true });
      return answer.vmid;
    },
    {
      validator: (request) => {
        if (!request || typeof request.key !== 'string' || request.key === '')
          throw new Error('say who asks: "key" is required');
        const { min, max } = request.range ?? {};
        if (
          !Number.isInteger(min) ||
          !Number.isInteger(max) ||
          min! < PVE_VMID_MIN ||
          max! > PVE_VMID_MAX ||
          min! > max!
        ) {
          throw new Error(
            `range must be whole numbers ${PVE_VMID_MIN} ≤ min ≤ max ≤ ${PVE_VMID_MAX}, got ${JSON.stringify(request.range)}`,
          );
        }
      },
    },
  );

  for (;;) {
    await condition(() => queue.length > 0 || workflowInfo().continueAsNewSuggested);
    if (queue.length > 0) {
      await answerBatch(queue.splice(0), state, answers);
      continue;
    }
    // Hand over to a fresh run once every waiting update has its answer (new ones keep the loop going).
    await condition(() => allHandlersFinished() || queue.length > 0);
    if (queue.length === 0) await continueAsNew<typeof vmidAllocator>({ carried: state });
  }
}

/** Answers one batch against one fresh read of the VMIDs in use, over the union of the batch's ranges. */
async function answerBatch(batch: QueuedRequest[], state: AllocatorState, answers: Map<string, Answer>): Promise<void> {
  const range = {
    min: Math.min(...batch.map((b) => b.request.range.min)),
    max: Math.max(...batch.map((b) => b.request.range.max)),
  };
  let used: number[];
  try {
    used = await reads.usedVmids({ range });
  } catch (err) {
    // The allocator outlives a failed read: this batch is refused, the next one reads again.
    const readFailed = `could not read the VMIDs in use: ${failureMessage(err)}`;
    const { final, category } = finalCause(err);
    for (const b of batch) answers.set(b.id, { readFailed, final, category });
    return;
  }
  const result = allocate(
    batch.map((b) => b.request),
    used,
    state.reservations,
    workflowNow(),
  );
  state.reservations = result.reservations;
  batch.forEach((b, i) => answers.set(b.id, result.answers[i]!));
  state.allocated += result.answers.filter((a) => 'vmid' in a).length;
  setCurrentDetails(
    `${state.allocated} VMIDs handed out; ${state.reservations.length} not yet in use: ${state.reservations.map((r) => `${r.vmid} ${r.name}`).join(', ') || 'none'}`,
  );
}

/** Whether the read failed for good (the activity's own failure was non-retryable), and its category. */
function finalCause(err: unknown): { final: boolean; category?: string } {
  const cause = err instanceof ActivityFailure ? err.cause : undefined;
  if (!(cause instanceof ApplicationFailure) || !cause.nonRetryable) return { final: false };
  const category = (cause.details?.[0] as { category?: unknown } | undefined)?.category;
  return { final: true, ...(typeof category === 'string' ? { category } : {}) };
}

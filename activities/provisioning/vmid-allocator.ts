import { getClient } from '@temporalio/activity';
import { ApplicationFailure, WithStartWorkflowOperation, WorkflowUpdateFailedError } from '@temporalio/client';
import { VMID_ALLOCATOR_KEY, VMID_RANGE_EXHAUSTED, VMID_READ_FAILED } from '../../src/domain/provisioning';
import { FerryKind } from '../../src/domain/search-attributes';
import { coordinationQueue, mainQueueOf, scopedLimitKey } from '../../src/domain/task-queues';
import { FerryError, isRetryableCategory, type ErrorCategory } from '../../src/errors';
import { allocateVmidUpdate, type VmidAllocatorWorkflow } from '../../src/domain/messages';
import { clientsOf } from '../clients';
import type { ActivityDeps } from '../deps';
import type { ProvisioningActivities } from '../provisioning-contract';

/** The allocator's range is full: final until a person widens the range or frees VMIDs. */
class VmidRangeExhausted extends FerryError {}
/**
 * The allocator could not read the VMIDs in use: asking again can help when Proxmox or NetBox was
 * unreachable, not when the read was refused for good (TLS, credentials, permission, an unreadable answer).
 */
class VmidReadFailed extends FerryError {}

/**
 * The two sides of the VMID allocator workflow: a provision's request to it (update-with-start), and
 * the allocator's read of the VMIDs Proxmox and NetBox use.
 */
export function createVmidAllocatorActivities(
  deps: ActivityDeps,
): Pick<ProvisioningActivities, 'requestVmid' | 'usedVmids'> {
  const { pve, netbox } = clientsOf(deps);
  return {
    async requestVmid({ request, taskQueue }) {
      const mainQueue = mainQueueOf(taskQueue);
      const workflowId = scopedLimitKey(mainQueue, VMID_ALLOCATOR_KEY);
      try {
        const vmid = await getClient().workflow.executeUpdateWithStart(allocateVmidUpdate, {
          args: [request],
          startWorkflowOperation: new WithStartWorkflowOperation<VmidAllocatorWorkflow>('vmidAllocator', {
            workflowId,
            // One writer, on the coordination queue beside the main queue.
            taskQueue: coordinationQueue(mainQueue),
            args: [{}],
            workflowIdConflictPolicy: 'USE_EXISTING',
            typedSearchAttributes: [{ key: FerryKind, value: 'vmid-allocator' }],
            staticSummary: 'hands out VMIDs to records that have none (one writer)',
          }),
        });
        return { vmid };
      } catch (err) {
        throw err instanceof WorkflowUpdateFailedError ? refusal(workflowId, err) : err;
      }
    },

    async usedVmids({ range }) {
      const inRange = (vmid: number) => vmid >= range.min && vmid <= range.max;
      const proxmox = (await pve().vms.usedVmids()).filter(inRange);
      const records = deps.netbox ? await netbox().usedVmids(range) : [];
      return [...new Set([...proxmox, ...records])].sort((a, b) => a - b);
    },
  };
}

/** The allocator's refusal, classified: a failed read may be asked again, a full range may not. */
function refusal(workflowId: string, err: WorkflowUpdateFailedError): FerryError {
  const type = err.cause instanceof ApplicationFailure ? err.cause.type : undefined;
  const message = `the VMID allocator ${workflowId} refused: ${err.cause?.message ?? err.message}`;
  if (type === VMID_READ_FAILED)
    return new VmidReadFailed(message, readCategory(err.cause as ApplicationFailure), { cause: err });
  if (type === VMID_RANGE_EXHAUSTED) return new VmidRangeExhausted(message, 'policy', { cause: err });
  return new FerryError(message, 'invalid', { cause: err }); // the request failed the allocator's validation
}

const CATEGORIES: readonly ErrorCategory[] = [
  'transient',
  'locked',
  'conflict',
  'invalid',
  'permission',
  'not-found',
  'policy',
];

/** A failed read stays what its cause was: retryable only when the allocator's read may be asked again. */
function readCategory(failure: ApplicationFailure): ErrorCategory {
  if (!failure.nonRetryable) return 'transient';
  const said = (failure.details?.[0] as { category?: unknown } | undefined)?.category;
  const category = CATEGORIES.find((c) => c === said);
  return category && !isRetryableCategory(category) ? category : 'invalid';
}

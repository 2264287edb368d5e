import type { SeenVersion } from '../../src/domain/provisioning';
import type { Outcome } from '../../src/netbox/client';
import type { WriteOutcome } from '../provisioning-contract';
import type { WriteIntent } from '../write-intent';

/** What a NetBox write did, as provisioning reports it. */
export function writeOutcome(outcome: Outcome): WriteOutcome {
  return outcome === 'created' || outcome === 'updated' ? outcome : 'unchanged';
}

/** The outcome of a write this run may have done in an earlier attempt whose answer was lost (write-intent.ts). */
export function truthful(
  intent: WriteIntent,
  write: string,
  outcome: WriteOutcome,
  earlierDid: WriteOutcome,
): WriteOutcome {
  return outcome === 'unchanged' && intent.startedEarlier(write) ? earlierDid : outcome;
}

/** The VM's version after a write that answered with an ETag (NetBox 4.6+). */
export function seenAfter(etag: string | undefined, status: string): { seen?: SeenVersion } {
  return etag ? { seen: { etag, status } } : {};
}

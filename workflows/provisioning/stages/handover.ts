import { provisionStep } from '../../../src/domain/provisioning';
import type { VmBuild } from '../run-context';

/** The record says the VM is built: planned → staged. */
export async function markStaged({ acts, spec, enter, record, known }: VmBuild): Promise<void> {
  enter('handover');
  if (spec.netboxId === undefined) return;
  const { outcome } = await acts.write.markNetboxStaged.executeWithOptions(
    { summary: `NetBox VM ${spec.netboxId} planned → staged` },
    [{ netboxId: spec.netboxId, ...(known.seen ? { seen: known.seen } : {}) }],
  );
  record(provisionStep('netbox-status', `NetBox VM ${spec.netboxId}`, outcome, 'staged'));
}

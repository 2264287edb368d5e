import { ApplicationFailure } from '@temporalio/workflow';
import type { MigrationRun } from '../run-context';

/** Each disk arrived whole: its size in Proxmox equals the VMware capacity. */
export async function verifySizes(run: MigrationRun): Promise<undefined> {
  const { assessment, vmid } = run.vm;
  const sizes = await run.acts.read.diskSizes.executeWithOptions({ summary: `read the disk sizes of VM ${vmid}` }, [
    { node: run.settings.node, vmid },
  ]);
  const wrong = assessment.disks
    .filter((d) => sizes[d.slot] !== d.capacityBytes)
    .map((d) => `${d.slot} (${d.source}) is ${sizes[d.slot] ?? 'missing'} bytes, expected ${d.capacityBytes}`);
  if (wrong.length === 0) return undefined;
  throw ApplicationFailure.create({
    type: 'DiskSizeMismatch',
    message: `disk sizes differ: ${wrong.join('; ')}`,
    nonRetryable: true,
  });
}

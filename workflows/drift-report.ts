import { proxyActivities, upsertSearchAttributes } from '@temporalio/workflow';
import type { DriftActivities } from '../activities/drift-contract';
import type { DriftReport } from '../src/domain/change';
import { FerryKind } from '../src/domain/search-attributes';
import { RETRY } from './vm/proxies';

/**
 * One activity reads and plans the whole cluster: a large one takes minutes, its heartbeat says how far
 * it got, and a worker lost on the way is noticed within the heartbeat timeout.
 */
const drift = proxyActivities<DriftActivities>({
  startToCloseTimeout: '15m',
  heartbeatTimeout: '1m',
  retry: { ...RETRY, maximumAttempts: 3 },
});

/**
 * The drift report (`ferry drift`, and the daily `drift-<cluster>` schedule): every VM ferry built in a
 * NetBox cluster (with a tag) planned against Proxmox with the change plan, in both directions (NetBox
 * edits not in Proxmox yet, changes made by hand in Proxmox), refusals, and the VMs that could not be
 * read. Writes nothing, on either side.
 */
export async function driftReport(input: { cluster: string; tag?: string }): Promise<DriftReport> {
  upsertSearchAttributes([{ key: FerryKind, value: 'drift' }]);
  const what = `${input.cluster}${input.tag ? ` tagged ${input.tag}` : ''}`;
  return drift.readDriftReport.executeWithOptions({ summary: `read and plan the built VMs of ${what}` }, [input]);
}

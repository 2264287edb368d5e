import { upsertSearchAttributes } from '@temporalio/workflow';
import type { NetboxVmRecord } from '../src/domain/provisioning';
import { FerryKind } from '../src/domain/search-attributes';
import { reads } from './vm/proxies';

/**
 * Reads one NetBox VM through the worker (which holds the NetBox token), for clients that need its
 * name, status or VMID: `ferry teardown --netbox-id` finds the VMID its workflow id is made of.
 */
export async function netboxVm(input: { netboxId: number }): Promise<NetboxVmRecord> {
  upsertSearchAttributes([{ key: FerryKind, value: 'lookup' }]);
  return reads.readNetboxVm.executeWithOptions({ summary: `read NetBox VM ${input.netboxId}` }, [input]);
}

import { upsertSearchAttributes } from '@temporalio/workflow';
import type { BuiltVm } from '../activities/provisioning-contract';
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

/**
 * The NetBox VMs ferry built (with a `ferry_vmid`) of a cluster and with a tag, read through the worker
 * in pages: `ferry apply --cluster/--tag` starts one `changeVm` for each.
 */
export async function builtNetboxVms(input: { cluster?: string; tag?: string }): Promise<BuiltVm[]> {
  upsertSearchAttributes([{ key: FerryKind, value: 'lookup' }]);
  const what = [input.cluster ? `in ${input.cluster}` : '', input.tag ? `tagged ${input.tag}` : ''].filter(Boolean);
  return reads.listBuiltVms.executeWithOptions({ summary: `NetBox VMs built by ferry ${what.join(' ')}`.trim() }, [
    input,
  ]);
}

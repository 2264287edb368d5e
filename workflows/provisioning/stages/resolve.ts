import { upsertSearchAttributes } from '@temporalio/workflow';
import { specFromRecord, validateSpec, type ProvisionSpec, provisionStep } from '../../../src/domain/provisioning';
import { VmId, VmName } from '../../../src/domain/search-attributes';
import type { ProvisionVmInput } from '../../provision-vm';
import { mainQueue } from '../../queues';
import { refuse } from '../refuse';
import type { ProvisionRun, UnplacedBuild } from '../run-context';

/** NetBox statuses a provision takes: planned (new) and staged (a rerun that checks and finishes). */
const PROVISIONABLE = ['planned', 'staged'];

/** The spec, from NetBox or given, validated before anything is touched. */
export async function resolveSpec(run: ProvisionRun, input: ProvisionVmInput): Promise<ProvisionSpec> {
  if ((input.netboxId === undefined) === (input.spec === undefined)) {
    refuse('InvalidInput', 'provisionVm takes either netboxId or spec (not both, not neither)');
  }
  const spec = input.netboxId !== undefined ? await specOfRecord(run, input.netboxId) : givenSpec(input.spec);
  const resolved = input.start === undefined ? spec : { ...spec, start: input.start };
  run.status.name = resolved.name;
  run.status.node = resolved.node;
  upsertSearchAttributes([{ key: VmName, value: resolved.name }]);
  return resolved;
}

async function specOfRecord(run: ProvisionRun, netboxId: number): Promise<ProvisionSpec> {
  const record = await run.acts.read.readNetboxVm.executeWithOptions({ summary: `read NetBox VM ${netboxId}` }, [
    { netboxId },
  ]);
  run.status.name = record.name;
  if (!PROVISIONABLE.includes(record.status)) {
    refuse(
      'NotProvisionable',
      `NetBox VM "${record.name}" (id ${record.id}) is ${record.status}; ferry provisions planned VMs (and finishes staged ones)`,
    );
  }
  const built = specFromRecord(record, run.settings.defaults);
  if (!built.ok) refuse('InvalidSpec', `the VM cannot be built as recorded:\n  - ${built.problems.join('\n  - ')}`);
  if (record.etag) run.known.seen = { etag: record.etag, status: record.status };
  if (record.interfaceCount === 0) run.known.hadNoInterfaces = true;
  return built.spec;
}

function givenSpec(spec: unknown): ProvisionSpec {
  const checked = validateSpec(spec, 'spec');
  if (!checked.ok) refuse('InvalidSpec', `the spec is not valid:\n  - ${checked.problems.join('\n  - ')}`);
  return checked.spec;
}

/** The VMID: from the record, else from the single allocator (written back to NetBox first). */
export async function resolveVmid(run: ProvisionRun, spec: ProvisionSpec): Promise<UnplacedBuild> {
  run.enter('vmid');
  const vmid = spec.vmid ?? (await allocateVmid(run, spec));
  run.status.vmid = vmid;
  upsertSearchAttributes([{ key: VmId, value: vmid }]);
  return { ...run, spec, vmid };
}

async function allocateVmid(run: ProvisionRun, spec: ProvisionSpec): Promise<number> {
  const { acts, settings, record } = run;
  const key = spec.netboxId !== undefined ? `netbox-${spec.netboxId}` : `spec-${spec.name}`;
  const { vmid } = await acts.read.requestVmid.executeWithOptions(
    { summary: `VMID for ${spec.name} from the allocator` },
    [{ request: { key, name: spec.name, range: settings.vmidRange }, taskQueue: mainQueue() }],
  );
  record(
    provisionStep(
      'allocate-vmid',
      `VMID ${vmid}`,
      'created',
      `from ${settings.vmidRange.min}–${settings.vmidRange.max}`,
    ),
  );
  if (spec.netboxId === undefined) return vmid;
  // Written to the source of truth before anything is built with it.
  const written = await acts.write.recordVmid.executeWithOptions(
    { summary: `ferry_vmid ${vmid} into NetBox VM ${spec.netboxId}` },
    [{ netboxId: spec.netboxId, vmid, ...(run.known.seen ? { seen: run.known.seen } : {}) }],
  );
  run.known.seen = written.seen;
  record(
    provisionStep(
      'record-vmid',
      `NetBox VM ${spec.netboxId}`,
      written.outcome,
      written.vmid === vmid ? `ferry_vmid ${vmid}` : `the record got ferry_vmid ${written.vmid} meanwhile; using it`,
    ),
  );
  return written.vmid;
}

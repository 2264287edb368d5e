import { ApplicationFailure, upsertSearchAttributes, setHandler, workflowInfo } from '@temporalio/workflow';
import {
  bareVm,
  fqdn,
  hostAddress,
  newProvisionStatus,
  requirements,
  specFromRecord,
  validateSpec,
  vmOptions,
  type ProvisionResult,
  type ProvisionSpec,
  type ProvisionStage,
  type ProvisionStatus,
  type ProvisionStep,
  type ProvisioningSettings,
  type StepOutcome,
} from '../src/domain/provisioning';
import { PERMIT_KEYS } from '../src/domain/permits';
import { FerryKind, FerryStage, VmId, VmName } from '../src/domain/search-attributes';
import { occupancy, type VmidClash } from '../src/domain/vmid';
import { failureMessage } from './failures';
import { provisionStatusQuery } from '../src/messages';
import { withPermit } from './permits';
import { pollUntil } from './poll';
import { activityOptions, READ, run, type ActivityKinds } from './provisioning/proxies';

export interface ProvisionVmInput {
  /** The NetBox VM to build (status planned; a staged one is checked and finished). */
  netboxId?: number;
  /** Or a whole spec (see src/domain/provisioning/spec.ts), validated here. */
  spec?: unknown;
  /** Start the VM at the end (default: the spec's, else provisioning.start). */
  start?: boolean;
  /** Resolved once by provisionPlanned; a standalone run loads them from the worker's configuration. */
  settings?: ProvisioningSettings;
}

/** NetBox statuses a provision takes: planned (new) and staged (a rerun that checks and finishes). */
const PROVISIONABLE = ['planned', 'staged'];
const VISIBLE_TIMEOUT_MS = 10 * 60_000;
const START_LEASE_MS = 30 * 60_000;

/**
 * Builds one VM: resolve the spec and the VMID → refuse a clash → preflight → bare VM, visible
 * cluster-wide, ACL → disks, NICs, options → NetBox interface and MAC → address → DNS → `staged` →
 * optionally start. Every step checks before it acts, so a rerun of a finished provision writes
 * nothing, and a crashed worker costs a retry, never a second VM.
 */
export async function provisionVm(input: ProvisionVmInput): Promise<ProvisionResult> {
  const status = newProvisionStatus(input.netboxId);
  setHandler(provisionStatusQuery, () => status);
  upsertSearchAttributes([{ key: FerryKind, value: 'provision' }]);
  const enter = (stage: ProvisionStage) => {
    status.stage = stage;
    upsertSearchAttributes([{ key: FerryStage, value: stage }]);
  };
  try {
    enter('resolve');
    await provision(input, status, enter);
  } catch (err) {
    status.error = failureMessage(err);
    enter('failed');
    throw err;
  }
  enter('done');
  status.outcome = 'provisioned';
  return { ...status, outcome: 'provisioned' };
}

/** A refusal that retrying cannot change: the workflow fails at once with the reason. */
function refuse(type: string, message: string): never {
  throw ApplicationFailure.create({ type, message, nonRetryable: true });
}

function clashMessage(clash: VmidClash, spec: ProvisionSpec): string {
  const fix = spec.netboxId !== undefined ? `fix ferry_vmid of NetBox VM ${spec.netboxId}` : 'give the spec another vmid';
  return clash.kind === 'vmid-taken'
    ? `VMID ${clash.vmid} already belongs to Proxmox VM "${clash.holder ?? '(no name)'}", not "${clash.name}": ${fix}, or remove that VM. Nothing was created.`
    : `a Proxmox VM named "${clash.name}" already exists as VMID ${clash.vmids.join(', ')}, not ${clash.vmid}: ${fix} to match it, or rename or remove that VM. Nothing was created.`;
}

async function provision(input: ProvisionVmInput, status: ProvisionStatus, enter: (stage: ProvisionStage) => void): Promise<void> {
  const record = (step: ProvisionStep['step'], subject: string, outcome: StepOutcome, detail?: string) =>
    status.steps.push({ step, subject, outcome, ...(detail ? { detail } : {}) });

  // --- resolve: the spec, from NetBox or given, validated before anything is touched ---
  const settings = input.settings ?? (await run(READ, 'loadProvisioningSettings', 'read the provisioning settings (ferry.yaml)'));
  const acts = activityOptions(settings);
  const spec = await resolveSpec(input, settings, acts, status);
  status.name = spec.name;
  status.node = spec.node;
  upsertSearchAttributes([{ key: VmName, value: spec.name }]);

  // --- vmid: from the record, else from the single allocator (written back to NetBox first) ---
  enter('vmid');
  const vmid = spec.vmid ?? (await allocateVmid(spec, settings, acts, record));
  status.vmid = vmid;
  upsertSearchAttributes([{ key: VmId, value: vmid }]);
  const node = spec.node;

  // --- check: adopt our own VM, refuse anything else at this VMID or under this name ---
  enter('check');
  const existing = await run(acts.read, 'findPveVms', `Proxmox VMs with VMID ${vmid} or name ${spec.name}`, { vmid, name: spec.name });
  const found = occupancy(vmid, spec.name, existing);
  if (found.kind === 'clash') refuse('VmidClash', clashMessage(found.clash, spec));
  const adopted = existing.find((vm) => vm.vmid === vmid);
  if (adopted && adopted.node !== node) {
    refuse('VmOnOtherNode', `VM ${vmid} "${spec.name}" exists on node ${adopted.node}, not ${node}: ferry does not move it; fix the node (ferry_node) or migrate the VM`);
  }

  // --- preflight: everything the VM needs exists, read through the API ---
  enter('preflight');
  const needs = requirements(spec);
  const { problems } = await run(acts.read, 'preflightVm', `check node ${node}, storages ${needs.storages.join(', ')}, networks ${needs.networks.join(', ') || '-'}${needs.iso ? `, ${needs.iso}` : ''}`, needs);
  if (problems.length > 0) refuse('PreflightFailed', `${spec.name} cannot be built on ${node}: ${problems.join('; ')}`);

  // --- create: the bare VM, seen by the whole cluster, with its ACL ---
  enter('create');
  if (found.kind === 'adopt') record('create-vm', `VM ${vmid}`, 'adopted', `${spec.name} exists on ${node}; continuing from what is there`);
  else {
    const { created } = await run(acts.vmTask, 'createBareVm', `create VM ${vmid} ${spec.name} on ${node} (q35, OVMF, no disks yet)`, bareVm(spec, vmid));
    record('create-vm', `VM ${vmid}`, created ? 'created' : 'unchanged', `${spec.name} on ${node}`);
  }
  status.waits.push(
    await pollUntil(async () => (await run(acts.read, 'waitVmVisible', `is VM ${vmid} in /cluster/resources`, { vmid })).visible, {
      what: `VM ${vmid} visible cluster-wide`,
      intervalMs: settings.pollIntervalMs,
      timeoutMs: VISIBLE_TIMEOUT_MS,
    }),
  );
  if (settings.acl) {
    const { changed } = await run(acts.record, 'ensureVmAcl', `ACL /vms/${vmid}: ${settings.acl.roles.join(', ')}`, { vmid, ...settings.acl });
    record('acl', `/vms/${vmid}`, changed ? 'created' : 'unchanged', settings.acl.roles.join(', '));
  } else record('acl', `/vms/${vmid}`, 'skipped', 'provisioning.acl is not set');

  // --- hardware: each disk and NIC in its slot, then the remaining options ---
  enter('hardware');
  for (const disk of spec.disks) {
    const { outcome } = await run(acts.vmTask, 'ensureVmDisk', `${disk.slot}: ${disk.sizeGiB} GiB on ${disk.storage}`, { node, vmid, disk });
    record('disk', disk.slot, outcome, `${disk.sizeGiB} GiB on ${disk.storage}`);
  }
  for (const nic of spec.nics) {
    const where = `${nic.network}${nic.vlan !== undefined ? ` VLAN ${nic.vlan}` : ''}`;
    const { outcome } = await run(acts.record, 'ensureVmNic', `${nic.slot}: ${nic.model} on ${where}`, { node, vmid, nic });
    record('nic', nic.slot, outcome, `${nic.model} on ${where}`);
  }
  const options = vmOptions(spec);
  if (Object.keys(options).length > 0) {
    const { changed } = await run(acts.record, 'ensureVmOptions', `options ${Object.keys(options).join(', ')}`, { node, vmid, options });
    record('options', Object.keys(options).join(', '), changed.length > 0 ? 'updated' : 'unchanged', changed.length > 0 ? `set ${changed.join(', ')}` : undefined);
  }

  // --- netbox: the interfaces, with the MACs Proxmox gave the NICs ---
  enter('netbox');
  status.macs = await run(acts.read, 'readVmMacs', `MACs of VM ${vmid}`, { node, vmid });
  const interfaceIds: Record<string, number> = {};
  for (const nic of spec.nics) {
    const mac = status.macs[nic.slot]!;
    if (spec.netboxId === undefined) {
      record('interface', nic.slot, 'skipped', 'no NetBox record');
      continue;
    }
    const done = await run(acts.record, 'ensureNetboxInterface', `NetBox interface ${nic.slot} of ${spec.name}, MAC ${mac}`, { netboxId: spec.netboxId, name: nic.slot, mac });
    interfaceIds[nic.slot] = done.interfaceId;
    record('interface', nic.slot, done.interface);
    record('mac', `${nic.slot} ${mac}`, done.mac);
  }

  // --- address: the first NIC's, from the prefix (look first, then allocate) ---
  enter('address');
  const first = spec.nics[0];
  if (spec.prefix && first && spec.netboxId !== undefined) {
    const dnsName = spec.dnsZone ? fqdn(spec.name, spec.dnsZone) : undefined;
    const ip = await run(acts.record, 'assignNetboxIp', `address for ${spec.name} ${first.slot} from ${spec.prefix}`, {
      netboxId: spec.netboxId,
      interfaceId: interfaceIds[first.slot]!,
      prefix: spec.prefix,
      ...(dnsName ? { dnsName } : {}),
    });
    status.address = ip.address;
    record('ip', ip.address, ip.outcome, `${first.slot}, from ${spec.prefix}`);
    record('primary-ip', ip.address, ip.primary);
  } else record('ip', first?.slot ?? '-', 'skipped', spec.prefix ? 'no NetBox record or NIC' : 'no prefix (provisioning.prefix)');

  // --- dns: A and PTR ---
  enter('dns');
  if (spec.dnsZone && status.address && settings.has.dns) {
    const name = fqdn(spec.name, spec.dnsZone);
    const address = hostAddress(status.address);
    status.fqdn = name;
    for (const type of ['A', 'PTR'] as const) {
      const { outcome } = await run(acts.record, 'ensureDnsRecord', `DNS ${type} ${name} ↔ ${address}`, { type, name, address });
      record(type === 'A' ? 'dns-a' : 'dns-ptr', type === 'A' ? `${name} A ${address}` : `${address} PTR ${name}`, outcome);
    }
  } else record('dns-a', spec.name, 'skipped', !settings.has.dns ? 'DNS is not configured' : !spec.dnsZone ? 'no DNS zone (provisioning.dnsZone)' : 'no address');

  // --- handover: the record says the VM is built ---
  enter('handover');
  if (spec.netboxId !== undefined) {
    const { outcome } = await run(acts.record, 'markNetboxStaged', `NetBox VM ${spec.netboxId} planned → staged`, { netboxId: spec.netboxId });
    record('netbox-status', `NetBox VM ${spec.netboxId}`, outcome, 'staged');
  }

  // --- start: optional, held to the global start limit ---
  if (spec.start) {
    enter('start');
    const power = await run(acts.read, 'vmPowerState', `is VM ${vmid} running`, { node, vmid });
    if (power.status === 'running') record('start', `VM ${vmid}`, 'unchanged', 'already running');
    else {
      await withPermit({ key: PERMIT_KEYS.vmStart, permits: settings.vmStartPermits, leaseMs: START_LEASE_MS, label: `start ${spec.name}` }, async ({ waitedMs }) => {
        status.waits.push({ for: 'VM start permit', waitedMs });
        await run(acts.vmTask, 'startVm', `start VM ${vmid} ${spec.name}`, { node, vmid });
      });
      record('start', `VM ${vmid}`, 'created', 'started');
    }
  }
}

async function resolveSpec(input: ProvisionVmInput, settings: ProvisioningSettings, acts: ActivityKinds, status: ProvisionStatus): Promise<ProvisionSpec> {
  if ((input.netboxId === undefined) === (input.spec === undefined)) {
    refuse('InvalidInput', 'provisionVm takes either netboxId or spec (not both, not neither)');
  }
  let spec: ProvisionSpec;
  if (input.netboxId !== undefined) {
    const record = await run(acts.read, 'readNetboxVm', `read NetBox VM ${input.netboxId}`, { netboxId: input.netboxId });
    status.name = record.name;
    if (!PROVISIONABLE.includes(record.status)) {
      refuse('NotProvisionable', `NetBox VM "${record.name}" (id ${record.id}) is ${record.status}; ferry provisions planned VMs (and finishes staged ones)`);
    }
    const built = specFromRecord(record, settings.defaults);
    if (!built.ok) refuse('InvalidSpec', `the VM cannot be built as recorded:\n  - ${built.problems.join('\n  - ')}`);
    spec = built.spec;
  } else {
    const checked = validateSpec(input.spec, 'spec');
    if (!checked.ok) refuse('InvalidSpec', `the spec is not valid:\n  - ${checked.problems.join('\n  - ')}`);
    spec = checked.spec;
  }
  return input.start === undefined ? spec : { ...spec, start: input.start };
}

async function allocateVmid(
  spec: ProvisionSpec,
  settings: ProvisioningSettings,
  acts: ActivityKinds,
  record: (step: ProvisionStep['step'], subject: string, outcome: StepOutcome, detail?: string) => void,
): Promise<number> {
  const key = spec.netboxId !== undefined ? `netbox-${spec.netboxId}` : `spec-${spec.name}`;
  const { vmid } = await run(acts.read, 'requestVmid', `VMID for ${spec.name} from the allocator`, {
    request: { key, name: spec.name, range: settings.vmidRange },
    taskQueue: workflowInfo().taskQueue,
  });
  record('allocate-vmid', `VMID ${vmid}`, 'created', `from ${settings.vmidRange.min}–${settings.vmidRange.max}`);
  if (spec.netboxId === undefined) return vmid;
  // Written to the source of truth before anything is built with it.
  const written = await run(acts.record, 'recordVmid', `ferry_vmid ${vmid} into NetBox VM ${spec.netboxId}`, { netboxId: spec.netboxId, vmid });
  record('record-vmid', `NetBox VM ${spec.netboxId}`, written.outcome, written.vmid === vmid ? `ferry_vmid ${vmid}` : `the record got ferry_vmid ${written.vmid} meanwhile; using it`);
  return written.vmid;
}

import type { DatastoreRecord, PortgroupRecord, PowerState, VmRecord } from '../domain/inventory';
import { FerryError } from '../errors';
import { element, moRef, type MoRef, type Xml } from './envelope';
import { GuestShutdownTimeout, VsphereFault } from './faults';
import { discover } from './discovery';
import {
  datastoreRecord,
  INFRA_PATHS,
  mapVm,
  ObjectIndex,
  portgroupRecord,
  unnamedPorts,
  VM_PATHS,
  vmRecord,
} from './inventory-mapping';
import {
  ancestorSpecs,
  retrieveProperties,
  selectionByName,
  traversalSpec,
  type FilterSpec,
  type ObjectContent,
} from './property-collector';
import { asMoRef, badAnswer } from './read';
import type { VimSession } from './session';
import { cancellation, sleep, waitForTask, type WaitOptions } from './tasks';
import { child } from './xml';

export function vmRef(moid: string): MoRef {
  return { type: 'VirtualMachine', value: moid };
}

function target(moid: string): string {
  return `VirtualMachine:${moid}`;
}

/** Reads properties of one VM; a VM that does not exist is a plain not-found error naming it. */
async function readVmProperties(
  session: VimSession,
  moid: string,
  spec: Omit<FilterSpec, 'objectSet'> & { selectSet?: Xml[] },
): Promise<ObjectContent[]> {
  try {
    return await retrieveProperties(session, {
      propSet: spec.propSet,
      objectSet: [{ obj: vmRef(moid), selectSet: spec.selectSet }],
    });
  } catch (err) {
    if (err instanceof VsphereFault && err.faultType === 'ManagedObjectNotFound') {
      throw new FerryError(`VM ${moid} was not found in vCenter`, 'not-found', { cause: err, details: { moid } });
    }
    throw err;
  }
}

export interface VmDetail {
  vm: VmRecord;
  /** `[datastore] dir/name.vmx`: where the VM's home (configuration, logs, swap) is. */
  vmPathName?: string;
  /** Datastores mounted on the VM's host. */
  hostDatastores: DatastoreRecord[];
}

/**
 * One VM read fresh (cutover needs the disk paths as they are after storage vMotion), with its host,
 * cluster, folder path and the datastores its host mounts, in a single retrieval.
 */
export async function readVmDetail(session: VimSession, moid: string): Promise<VmDetail> {
  const { rootFolder } = await session.serviceContent();
  const objects = await readVmProperties(session, moid, {
    propSet: [
      { type: 'VirtualMachine', pathSet: [...VM_PATHS, 'config.files.vmPathName'] },
      { type: 'HostSystem', pathSet: [...INFRA_PATHS.HostSystem!, 'datastore'] },
      { type: 'ComputeResource', pathSet: INFRA_PATHS.ComputeResource! },
      { type: 'Datastore', pathSet: INFRA_PATHS.Datastore! },
      { type: 'Folder', pathSet: INFRA_PATHS.Folder! },
      { type: 'Datacenter', pathSet: INFRA_PATHS.Datacenter! },
    ],
    selectSet: [
      traversalSpec('vmHost', 'VirtualMachine', 'runtime.host', [
        traversalSpec('hostParent', 'HostSystem', 'parent'),
        traversalSpec('hostDatastores', 'HostSystem', 'datastore'),
      ]),
      ...ancestorSpecs(),
      traversalSpec('vmParent', 'VirtualMachine', 'parent', [selectionByName('folderParent')]),
    ],
  });
  const index = new ObjectIndex(objects);
  const self = index.get(vmRef(moid));
  if (!self) throw new FerryError(`VM ${moid} was not found in vCenter`, 'not-found', { details: { moid } });
  const mapped = vmRecord(self, index, rootFolder);
  if (!mapped.ok) throw new FerryError(`VM ${moid}: ${mapped.reason}`, 'invalid', { details: { moid } });
  const host = index.get(mapped.vm.host ? { type: 'HostSystem', value: mapped.vm.host.moid } : undefined);
  const mounted = new Set(host?.props.get('datastore')?.children.map((e) => e.text.trim()) ?? []);
  const hostDatastores = [...index.all()]
    .filter((o) => o.obj.type === 'Datastore' && mounted.has(o.obj.value))
    .map(datastoreRecord);
  return { vm: mapped.vm, vmPathName: self.props.get('config.files.vmPathName')?.text, hostDatastores };
}

export interface VmWithNetworks {
  vm: VmRecord;
  /** The distributed portgroups the VM's networks are, with their switches. */
  portgroups: PortgroupRecord[];
}

/**
 * One VM mapped as discovery maps it (ports resolved, datastore names, folder path), with the
 * distributed portgroups it uses: what a VM's migration starts from, read in two retrievals (the VM
 * with its host, cluster, datastores, networks and folders; then its portgroups' switches) instead of
 * the whole inventory per VM.
 */
export async function readVmWithNetworks(session: VimSession, moid: string): Promise<VmWithNetworks> {
  const { rootFolder } = await session.serviceContent();
  const infra = (type: string) => ({ type, pathSet: INFRA_PATHS[type]! });
  const objects = await readVmProperties(session, moid, {
    propSet: [
      { type: 'VirtualMachine', pathSet: VM_PATHS },
      ...['DistributedVirtualPortgroup', 'HostSystem', 'ComputeResource', 'Datastore', 'Folder', 'Datacenter'].map(
        infra,
      ),
    ],
    selectSet: [
      traversalSpec('vmHost', 'VirtualMachine', 'runtime.host', [traversalSpec('hostParent', 'HostSystem', 'parent')]),
      traversalSpec('vmDatastores', 'VirtualMachine', 'datastore'),
      traversalSpec('vmNetworks', 'VirtualMachine', 'network'),
      ...ancestorSpecs(),
      traversalSpec('vmParent', 'VirtualMachine', 'parent', [selectionByName('folderParent')]),
    ],
  });
  const self = objects.find((o) => o.obj.type === 'VirtualMachine' && o.obj.value === moid);
  if (!self) throw new FerryError(`VM ${moid} was not found in vCenter`, 'not-found', { details: { moid } });
  // A NIC bound to a distributed port that names no portgroup is resolved through its switch by uuid,
  // and its portgroup is not among the VM's networks: rare enough to read the whole inventory for.
  if (unnamedPorts([self]).size > 0) return fromDiscovery(session, moid);
  // The switches its portgroups name (config.distributedVirtualSwitch), read by reference.
  const switchRefs = new Map<string, MoRef>();
  for (const o of objects) {
    const dvs =
      o.obj.type === 'DistributedVirtualPortgroup' ? o.props.get('config.distributedVirtualSwitch') : undefined;
    if (dvs) switchRefs.set(dvs.text.trim(), asMoRef(dvs, 'config.distributedVirtualSwitch'));
  }
  const switches =
    switchRefs.size === 0
      ? []
      : await retrieveProperties(session, {
          propSet: [infra('DistributedVirtualSwitch')],
          objectSet: [...switchRefs.values()].map((obj) => ({ obj })),
        });
  const index = new ObjectIndex([...objects, ...switches]);
  const mapped = mapVm(self, index, rootFolder);
  if (!mapped.ok) throw new FerryError(`VM ${moid}: ${mapped.reason}`, 'invalid', { details: { moid } });
  const portgroups = [...index.all()]
    .filter((o) => o.obj.type === 'DistributedVirtualPortgroup')
    .map((o) => portgroupRecord(o, index));
  return { vm: mapped.vm, portgroups };
}

async function fromDiscovery(session: VimSession, moid: string): Promise<VmWithNetworks> {
  const { inventory, skipped } = await discover(session, '');
  const vm = inventory.vms.find((v) => v.moid === moid);
  if (!vm) {
    const reason = skipped.find((s) => s.moid === moid)?.reason;
    throw reason
      ? new FerryError(`VM ${moid}: ${reason}`, 'invalid', { details: { moid } })
      : new FerryError(`VM ${moid} was not found in vCenter`, 'not-found', { details: { moid } });
  }
  return { vm, portgroups: inventory.portgroups };
}

export interface RelocateResult {
  /** false: home and every disk were already on the datastore, nothing was done. */
  moved: boolean;
  datastore: DatastoreRecord;
  task?: string;
  durationMs: number;
}

/**
 * Everything is there: the VM's datastores (home and disks, vCenter's `datastore` property) are just
 * the target, and so is every disk. (vcsim's RelocateVM_Task updates only that property, not paths.)
 */
function onDatastore(detail: VmDetail, datastore: DatastoreRecord): boolean {
  const used = detail.vm.datastores ?? [];
  return (
    used.length > 0 &&
    used.every((name) => name === datastore.name) &&
    detail.vm.disks.every((d) =>
      d.datastore ? d.datastore.moid === datastore.moid : d.fileName.startsWith(`[${datastore.name}] `),
    )
  );
}

/**
 * Storage vMotion of a VM (home and all disks) to the datastore named `datastoreName`; a no-op when
 * everything is already there. Progress is reported on every poll; cancellation cancels the task.
 */
export async function relocateVmStorage(
  session: VimSession,
  moid: string,
  datastoreName: string,
  options: WaitOptions = {},
): Promise<RelocateResult> {
  const started = performance.now();
  const detail = await readVmDetail(session, moid);
  const datastore = detail.hostDatastores.find((d) => d.name === datastoreName);
  if (!datastore) {
    throw new FerryError(
      `datastore ${datastoreName} is not mounted on ${detail.vm.host?.name ?? 'the host'} of VM ${detail.vm.name} (${moid}); mounted: ${
        detail.hostDatastores.map((d) => d.name).join(', ') || 'none'
      }`,
      'not-found',
      { details: { moid, datastore: datastoreName } },
    );
  }
  if (onDatastore(detail, datastore))
    return { moved: false, datastore, durationMs: Math.round(performance.now() - started) };
  if (options.signal?.aborted) throw cancellation(options.signal);

  // VirtualMachineRelocateSpec: service, folder, datastore, … (WSDL order); the datastore moves home and disks.
  const response = await session.call('RelocateVM_Task', vmRef(moid), [
    element('spec', moRef('datastore', { type: 'Datastore', value: datastore.moid })),
  ]);
  const task = asMoRef(child(response, 'returnval') ?? response, 'RelocateVM_Task returnval');
  // The task id goes to the caller before any other await: an activity heartbeats it at once.
  options.onProgress?.({ step: 'relocate', state: 'queued', task: task.value, elapsedMs: 0 });
  await waitForTask(session, task, { step: 'relocate', method: 'RelocateVM_Task', object: target(moid) }, options);
  return { moved: true, datastore, task: task.value, durationMs: Math.round(performance.now() - started) };
}

/**
 * Waits for a storage vMotion started earlier (by an attempt whose worker died), by its task moid, so a
 * retry does not start a second one. Throws the task's fault if it failed, ManagedObjectNotFound if
 * vCenter no longer knows the task.
 */
export async function waitForRelocation(
  session: VimSession,
  moid: string,
  task: string,
  options: WaitOptions = {},
): Promise<void> {
  await waitForTask(
    session,
    { type: 'Task', value: task },
    { step: 'relocate', method: 'RelocateVM_Task', object: target(moid) },
    options,
  );
}

async function powerState(session: VimSession, moid: string): Promise<PowerState> {
  const [content] = await readVmProperties(session, moid, {
    propSet: [{ type: 'VirtualMachine', pathSet: ['runtime.powerState'] }],
  });
  const state = content?.props.get('runtime.powerState')?.text;
  if (!state) throw badAnswer(target(moid), 'runtime.powerState is missing');
  return state as PowerState;
}

async function runTask(
  session: VimSession,
  moid: string,
  method: string,
  step: string,
  options: WaitOptions,
): Promise<void> {
  if (options.signal?.aborted) throw cancellation(options.signal);
  const response = await session.call(method, vmRef(moid));
  const task = asMoRef(child(response, 'returnval') ?? response, `${method} returnval`);
  await waitForTask(session, task, { step, method, object: target(moid) }, options);
}

export interface ShutdownOptions extends WaitOptions {
  /** How long to wait for the guest to power off after ShutdownGuest. */
  timeoutMs: number;
  /** Power the VM off when the guest cannot shut down (no Tools) or does not in time. */
  force: boolean;
}

export interface ShutdownResult {
  outcome: 'already-off' | 'guest-shutdown' | 'powered-off';
  /** Why a forced power-off happened. */
  reason?: string;
  waitedMs: number;
}

/**
 * Asks the guest to shut down, waits for poweredOff up to the timeout, then powers off if `force`
 * allows it (else fails with GuestShutdownTimeout). A VM that is already off is left as it is; a
 * suspended VM is refused (policy), `force` or not.
 */
export async function shutdownGuest(
  session: VimSession,
  moid: string,
  options: ShutdownOptions,
): Promise<ShutdownResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const forceOff = async (reason: string): Promise<ShutdownResult> => {
    try {
      await runTask(session, moid, 'PowerOffVM_Task', 'power-off', options);
    } catch (err) {
      // It went off by itself between the last look and the power-off.
      if (!(err instanceof VsphereFault && err.faultType === 'InvalidPowerState')) throw err;
    }
    return { outcome: 'powered-off', reason, waitedMs: elapsed() };
  };

  const state = await powerState(session, moid);
  if (state === 'poweredOff') return { outcome: 'already-off', waitedMs: elapsed() };
  if (state === 'suspended') {
    // Not even with `force`: powering off a suspended VM throws its suspended memory away, and a
    // rollback could not restore it. A person resumes it or powers it off first.
    throw new FerryError(
      `VM ${moid} is suspended: its guest cannot shut down, and ferry does not power off a suspended VM; resume it or power it off first`,
      'policy',
      {
        details: { moid },
      },
    );
  }

  if (options.signal?.aborted) throw cancellation(options.signal);
  try {
    await session.call('ShutdownGuest', vmRef(moid));
  } catch (err) {
    if (!(err instanceof VsphereFault)) throw err;
    if (err.faultType === 'InvalidPowerState' && (await powerState(session, moid)) === 'poweredOff') {
      return { outcome: 'already-off', waitedMs: elapsed() };
    }
    if (options.force) return forceOff(`the guest could not be asked to shut down (${err.faultType})`);
    throw err;
  }

  const interval = options.pollIntervalMs ?? 1000;
  const deadline = performance.now() + options.timeoutMs;
  for (;;) {
    const now = await powerState(session, moid);
    options.onProgress?.({ step: 'shutdown-guest', state: now, elapsedMs: elapsed() });
    if (now === 'poweredOff') return { outcome: 'guest-shutdown', waitedMs: elapsed() };
    if (performance.now() >= deadline) break;
    await sleep(Math.min(interval, Math.max(0, deadline - performance.now())), options.signal);
  }
  const within = options.timeoutMs < 10_000 ? `${options.timeoutMs} ms` : `${Math.round(options.timeoutMs / 1000)} s`;
  if (options.force) return forceOff(`the guest did not shut down within ${within}`);
  throw new GuestShutdownTimeout(
    `VM ${moid}: the guest did not shut down within ${within} and the shutdown policy does not allow a forced power-off`,
    { moid, timeoutMs: options.timeoutMs },
  );
}

export interface PowerOnResult {
  outcome: 'already-on' | 'powered-on';
}

/** Powers a VM on (rollback after a cutover); a VM that is already on is left as it is. */
export async function powerOn(session: VimSession, moid: string, options: WaitOptions = {}): Promise<PowerOnResult> {
  const state = await powerState(session, moid);
  if (state === 'poweredOn') return { outcome: 'already-on' };
  await runTask(session, moid, 'PowerOnVM_Task', 'power-on', options);
  return { outcome: 'powered-on' };
}

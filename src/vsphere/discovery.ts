import type { Inventory } from '../domain/inventory';
import { FerryError } from '../errors';
import { element, moRef, type MoRef } from './envelope';
import { resolvePorts } from './dv-ports';
import {
  datastoreRecord,
  INFRA_PATHS,
  mapVm,
  ObjectIndex,
  portgroupRecord,
  unnamedPorts,
  VM_PATHS,
} from './inventory-mapping';
import {
  ancestorSpecs,
  retrieveAll,
  traversalSpec,
  type FilterSpec,
  type ObjectSpec,
  type PropertySpec,
} from './property-collector';
import { asMoRef } from './read';
import type { VimSession } from './session';
import { ScopeError, scopePaths } from './scope-paths';
import { child } from './xml';

export { ScopeError };

/**
 * Where to look. Without a datacenter, folders or clusters: the whole vCenter. A folder or cluster is an
 * inventory path (`/DC0/vm/apps/web`, `/DC0/host/DC0_C0`; the datacenter is then the one it is in), or a
 * path below the datacenter's VM folder and host folder (`apps/web`, `DC0_C0`); VMs in any of them are
 * discovered (see scope-paths.ts).
 */
export interface DiscoveryScope {
  /** Datacenter name or inventory path (`DC0`, `/Europe/DC-AMS`). */
  datacenter?: string;
  folders?: string[];
  clusters?: string[];
}

export interface DiscoveryOptions {
  scope?: DiscoveryScope;
  /** Objects per PropertyCollector page. */
  pageSize?: number;
}

export interface SkippedObject {
  moid: string;
  name?: string;
  reason: string;
}

export interface DiscoveryResult {
  inventory: Inventory;
  /** VMs vCenter could not describe (inaccessible, orphaned), with the reason. */
  skipped: SkippedObject[];
  /** PropertyCollector pages the retrieval took. */
  pages: number;
}

const CONTAINER_TYPES = new Set([
  'Folder',
  'Datacenter',
  'ComputeResource',
  'ClusterComputeResource',
  'HostSystem',
  'ResourcePool',
]);

/** SearchIndex.FindByInventoryPath: `/DC0/vm/apps` → its MoRef, or undefined. */
export async function findByInventoryPath(session: VimSession, path: string): Promise<MoRef | undefined> {
  const { searchIndex } = await session.serviceContent();
  const response = await session.call('FindByInventoryPath', searchIndex, [element('inventoryPath', path)]);
  const found = child(response, 'returnval');
  return found ? asMoRef(found, `FindByInventoryPath(${path})`) : undefined;
}

interface ResolvedScope {
  /** Containers whose VMs are wanted. */
  vmContainers: MoRef[];
  /** Containers of the portgroups, switches, datastores, hosts and folders those VMs use. */
  infraContainer: MoRef;
  /** The datacenter, read with its parent folders so VM folder paths reach the root. */
  datacenter?: MoRef;
}

async function resolveScope(session: VimSession, scope: DiscoveryScope): Promise<ResolvedScope> {
  const { rootFolder } = await session.serviceContent();
  const paths = scopePaths(scope);
  if (!paths) return { vmContainers: [rootFolder], infraContainer: rootFolder };
  const dcPath = paths.datacenter;
  const datacenter = await findByInventoryPath(session, dcPath);
  if (!datacenter) throw new ScopeError(`datacenter ${dcPath} not found in vCenter`);
  if (datacenter.type !== 'Datacenter') throw new ScopeError(`${dcPath} is a ${datacenter.type}, not a datacenter`);

  const vmContainers: MoRef[] = [];
  const wanted = [
    ...paths.folders.map((path) => ({ kind: 'folder', path })),
    ...paths.clusters.map((path) => ({ kind: 'cluster', path })),
  ];
  for (const w of wanted) {
    const found = await findByInventoryPath(session, w.path);
    if (!found) throw new ScopeError(`${w.kind} ${w.path} not found in vCenter`);
    if (!CONTAINER_TYPES.has(found.type))
      throw new ScopeError(`${w.path} is a ${found.type}; a ${w.kind} scope must contain VMs`);
    vmContainers.push(found);
  }
  return {
    vmContainers: vmContainers.length > 0 ? vmContainers : [datacenter],
    infraContainer: datacenter,
    datacenter,
  };
}

async function createView(session: VimSession, container: MoRef, types: readonly string[]): Promise<MoRef> {
  const { viewManager } = await session.serviceContent();
  const response = await session.call('CreateContainerView', viewManager, [
    moRef('container', container),
    types.map((t) => element('type', t)),
    element('recursive', true),
  ]);
  const view = child(response, 'returnval');
  if (!view) throw new FerryError('vSphere CreateContainerView returned no view', 'invalid');
  return asMoRef(view, 'CreateContainerView');
}

function viewObjectSpec(view: MoRef): ObjectSpec {
  return { obj: view, skip: true, selectSet: [traversalSpec('view', 'ContainerView', 'view')] };
}

/** The datacenter and every folder above it, so inventory paths can be built up to the root. */
function ancestorsObjectSpec(datacenter: MoRef): ObjectSpec {
  return {
    obj: datacenter,
    selectSet: ancestorSpecs(),
  };
}

/**
 * The VMs in scope and the portgroups, switches, datastores, hosts and folders around them, in one
 * PropertyCollector retrieval over container views (paged with RetrievePropertiesEx maxObjects +
 * ContinueRetrievePropertiesEx). Round trips: a few for the scope and views, plus one per page.
 */
export async function discover(
  session: VimSession,
  vcenter: string,
  options: DiscoveryOptions = {},
): Promise<DiscoveryResult> {
  const { rootFolder } = await session.serviceContent();
  const scope = await resolveScope(session, options.scope ?? {});
  const infraTypes = Object.keys(INFRA_PATHS);
  const propSet: PropertySpec[] = [
    { type: 'VirtualMachine', pathSet: VM_PATHS },
    ...infraTypes.map((type) => ({ type, pathSet: INFRA_PATHS[type]! })),
  ];

  const retrieved = await session.restartable(async () => {
    const views: MoRef[] = [];
    try {
      const sameContainer =
        scope.vmContainers.length === 1 && scope.vmContainers[0]!.value === scope.infraContainer.value;
      if (sameContainer) {
        views.push(await createView(session, scope.infraContainer, ['VirtualMachine', ...infraTypes]));
      } else {
        for (const c of scope.vmContainers) views.push(await createView(session, c, ['VirtualMachine']));
        views.push(await createView(session, scope.infraContainer, infraTypes));
      }
      const objectSet = views.map(viewObjectSpec);
      if (scope.datacenter) objectSet.push(ancestorsObjectSpec(scope.datacenter));
      const spec: FilterSpec = { propSet, objectSet };
      return await retrieveAll(session, [spec], { pageSize: options.pageSize, sessionBound: true });
    } finally {
      for (const view of views)
        await session.call('DestroyView', view, [], { sessionBound: true }).catch(() => undefined);
    }
  });

  const index = new ObjectIndex(retrieved.objects);
  const vmObjects = [...index.all()].filter((o) => o.obj.type === 'VirtualMachine');
  const ports = await resolvePorts(session, index, unnamedPorts(vmObjects));
  const inventory: Inventory = { vcenter, vms: [], portgroups: [], datastores: [] };
  const skipped: SkippedObject[] = [];
  for (const o of index.all()) {
    switch (o.obj.type) {
      case 'VirtualMachine': {
        const mapped = mapVm(o, index, rootFolder, ports);
        if (mapped.ok) inventory.vms.push(mapped.vm);
        else skipped.push({ moid: mapped.moid, name: mapped.name, reason: mapped.reason });
        break;
      }
      case 'DistributedVirtualPortgroup':
        inventory.portgroups.push(portgroupRecord(o, index));
        break;
      case 'Datastore':
        inventory.datastores.push(datastoreRecord(o));
        break;
    }
  }
  const byName = <T extends { name: string }>(a: T, b: T) => a.name.localeCompare(b.name);
  inventory.vms.sort((a, b) => byName(a, b) || a.moid.localeCompare(b.moid));
  inventory.portgroups.sort(byName);
  inventory.datastores.sort(byName);
  return { inventory, skipped, pages: retrieved.pages };
}

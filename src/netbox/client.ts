import { z } from 'zod';
import type { NetboxConfig } from '../config';
import type { SeenVersion } from '../domain/provisioning';
import { PVE_VMID_MIN } from '../domain/vmid';
import { FERRY_CUSTOM_FIELDS, objectTypesOf, type FerryCustomField } from './custom-fields';
import { NetboxError, NetboxStaleError } from './errors';
import { NetboxHttp, type NetboxHttpOptions, type Query } from './http';
import {
  anything,
  customFieldSchema,
  ipAddressSchema,
  macAddressSchema,
  prefixSchema,
  statusSchema,
  virtualDiskSchema,
  virtualMachineSchema,
  vmidOnlySchema,
  builtVmSchema,
  type BuiltVmRow,
  vmInterfaceSchema,
  type CustomField,
  type IpAddress,
  type MacAddress,
  type NetboxStatus,
  type Prefix,
  type VirtualDisk,
  type VirtualMachine,
  type VmInterface,
  journalEntrySchema,
} from './schemas';

const VM_INTERFACE_TYPE = 'virtualization.vminterface';
const VMS = 'api/virtualization/virtual-machines/';
const INTERFACES = 'api/virtualization/interfaces/';
const VIRTUAL_DISKS = 'api/virtualization/virtual-disks/';
const MACS = 'api/dcim/mac-addresses/';
const IPS = 'api/ipam/ip-addresses/';
const PREFIXES = 'api/ipam/prefixes/';
const JOURNAL = 'api/extras/journal-entries/';
const VM_OBJECT = 'virtualization.virtualmachine';
const CUSTOM_FIELDS = 'api/extras/custom-fields/';
/** NetBox's default MAX_PAGE_SIZE: a bulk read asks for pages this large. */
const LIST_PAGE = 1000;
/**
 * Ids per `…_id=` filter of one query. The parameter's name repeats for each id (`virtual_machine_id=1234&`,
 * up to 29 bytes): 100 of them stay under the 4094-byte request line that gunicorn, NetBox's application
 * server, accepts by default (`limit_request_line`; a longer one is refused with HTTP 400).
 */
const IDS_PER_QUERY = 100;

/**
 * A VM without its rendered config context, which ferry never reads and NetBox computes per VM (about
 * half of a VM read's time on NetBox 4.7): `omit` since NetBox 4.3, `exclude` before (4.3 deprecated
 * it, 4.7 ignores it). Each version ignores the parameter it does not know.
 */
const WITHOUT_CONFIG_CONTEXT = { omit: 'config_context', exclude: 'config_context' } as const;

/** A VM's record with its interfaces, virtual disks and the IP addresses on those interfaces. */
export interface VmWithHardware {
  vm: VirtualMachine;
  interfaces: VmInterface[];
  disks: VirtualDisk[];
  addresses: IpAddress[];
}

/** What an idempotent operation did. */
export type Outcome = 'created' | 'updated' | 'unchanged' | 'deleted' | 'absent';

export interface VmFilter {
  /** One status or several (OR). */
  status?: string | string[];
  /** Cluster name. */
  cluster?: string;
  clusterId?: number;
  /** Tag slug(s); a VM must carry all of them. */
  tag?: string | string[];
  site?: string;
  name?: string;
  /** Custom field values, by field name (`ferry_node: 'pve1'` → `cf_ferry_node=pve1`). */
  customFields?: Record<string, string | number | boolean>;
}

/** An object as read, with the version NetBox gave it (ETag; absent before NetBox 4.6). */
export interface Versioned<T> {
  value: T;
  etag?: string;
}

/** Normalizes a MAC address to NetBox's form (upper case, colon-separated). */
export function normalizeMac(mac: string): string {
  const hex = mac.replace(/[^0-9a-fA-F]/g, '');
  if (hex.length !== 12 || !/^[0-9a-fA-F:.-]+$/.test(mac.trim()))
    throw new NetboxError(`"${mac}" is not a MAC address`, 'invalid');
  return hex.toUpperCase().match(/../g)!.join(':');
}

/**
 * ferry's NetBox client: VMs and their custom fields, status transitions guarded by ETags, VM
 * interfaces and their MAC objects, IP addresses allocated from a prefix by NetBox itself, and the
 * deletions teardown needs. Every write looks before it acts, so a retried activity finds its own
 * earlier work instead of creating a second record.
 */
export class NetboxClient {
  constructor(readonly http: NetboxHttp) {}

  static fromConfig(config: NetboxConfig, options: Partial<NetboxHttpOptions> = {}): NetboxClient {
    return new NetboxClient(
      new NetboxHttp({
        url: config.url,
        token: config.token,
        validateCerts: config.validateCerts,
        caFile: config.caFile,
        ...options,
      }),
    );
  }

  close(): Promise<void> {
    return this.http.close();
  }

  /** `/api/status/`: versions, and proof that the token is accepted. */
  async status(): Promise<NetboxStatus> {
    return (await this.http.request('GET', 'api/status/', { schema: statusSchema })).data;
  }

  // ---- Virtual machines --------------------------------------------------------------------------

  async listVirtualMachines(filter: VmFilter = {}): Promise<VirtualMachine[]> {
    const query: Query = {
      status: filter.status,
      cluster: filter.cluster,
      cluster_id: filter.clusterId,
      tag: filter.tag,
      site: filter.site,
      name: filter.name,
      ...WITHOUT_CONFIG_CONTEXT,
    };
    for (const [name, value] of Object.entries(filter.customFields ?? {})) query[`cf_${name}`] = value;
    return this.http.list(VMS, query, virtualMachineSchema);
  }

  async getVirtualMachine(id: number): Promise<Versioned<VirtualMachine>> {
    const { data, etag } = await this.http.request('GET', `${VMS}${id}/`, {
      schema: virtualMachineSchema,
      query: WITHOUT_CONFIG_CONTEXT,
    });
    return { value: data, etag };
  }

  /**
   * Changes a VM. With `ifMatch` (an ETag from an earlier read) NetBox 4.6+ refuses the change if the
   * VM changed in between: NetboxStaleError (category conflict).
   */
  async updateVirtualMachine(
    id: number,
    changes: Record<string, unknown>,
    options: { ifMatch?: string } = {},
  ): Promise<Versioned<VirtualMachine>> {
    const { data, etag } = await this.http.request('PATCH', `${VMS}${id}/`, {
      schema: virtualMachineSchema,
      body: changes,
      ifMatch: options.ifMatch,
      query: WITHOUT_CONFIG_CONTEXT,
    });
    return { value: data, etag };
  }

  /**
   * Changes a VM if it is still at the version `etag` names (an ETag the caller read or its own last
   * write answered): the write without a read before it. Changed since: nothing written, undefined,
   * and the caller reads it and decides again.
   */
  async updateVirtualMachineIfUnchanged(
    id: number,
    changes: Record<string, unknown>,
    etag: string,
  ): Promise<Versioned<VirtualMachine> | undefined> {
    try {
      return await this.updateVirtualMachine(id, changes, { ifMatch: etag });
    } catch (err) {
      if (err instanceof NetboxStaleError) return undefined;
      throw err;
    }
  }

  /**
   * Moves a VM from one of the `from` statuses to `to`: reads it, refuses if it is in another status,
   * and writes with the ETag it read, so a change made in between is refused (NetboxStaleError)
   * rather than overwritten. Already in `to`: unchanged. NetBox before 4.6 sends no ETag: the write
   * then goes unguarded (last write wins) and `guarded` is false, so the caller can say so.
   *
   * `seen` is the VM as the caller last read or wrote it (its ETag and status): when that status is
   * one of `from`, the write goes without a read, guarded by that ETag; a VM changed since gets the
   * read and the checks above.
   */
  async transitionStatus(
    id: number,
    from: string | string[],
    to: string,
    seen?: SeenVersion,
  ): Promise<{ outcome: Outcome; vm: Versioned<VirtualMachine>; guarded: boolean }> {
    const allowed = Array.isArray(from) ? from : [from];
    if (seen && seen.status !== to && allowed.includes(seen.status)) {
      const vm = await this.updateVirtualMachineIfUnchanged(id, { status: to }, seen.etag);
      if (vm) return { outcome: 'updated', vm, guarded: true };
    }
    const current = await this.getVirtualMachine(id);
    const guarded = current.etag !== undefined;
    const status = current.value.status.value;
    if (status === to) return { outcome: 'unchanged', vm: current, guarded };
    if (!allowed.includes(status)) {
      throw new NetboxError(
        `NetBox VM "${current.value.name}" (id ${id}) is ${status}; ferry moves it to ${to} only from ${allowed.join(' or ')}`,
        'policy',
      );
    }
    const vm = await this.updateVirtualMachine(id, { status: to }, { ifMatch: current.etag });
    return { outcome: 'updated', vm, guarded };
  }

  async deleteVirtualMachine(id: number): Promise<Outcome> {
    return this.delete(`${VMS}${id}/`);
  }

  // ---- Interfaces and MAC addresses --------------------------------------------------------------

  /** The interfaces of a VM, or of several at once (read in pages, not per VM). */
  async listInterfaces(vmId: number | readonly number[]): Promise<VmInterface[]> {
    return this.http.list(INTERFACES, { virtual_machine_id: vmId }, vmInterfaceSchema);
  }

  /** The virtual disks of a VM, or of several at once (read in pages, not per VM). */
  async listVirtualDisks(vmId: number | readonly number[]): Promise<VirtualDisk[]> {
    return this.http.list(VIRTUAL_DISKS, { virtual_machine_id: vmId }, virtualDiskSchema);
  }

  /**
   * The VM's interface `name` (e.g. `net0`), created if missing. `vmHadNone`: the caller read the VM
   * with no interfaces, so it creates without looking first (a name taken meanwhile is found after
   * NetBox refuses the duplicate, as below).
   */
  async ensureInterface(
    vmId: number,
    name: string,
    fields: Record<string, unknown> = {},
    options: { vmHadNone?: boolean } = {},
  ): Promise<{ outcome: Outcome; value: VmInterface }> {
    const find = async () =>
      (await this.http.list(INTERFACES, { virtual_machine_id: vmId, name }, vmInterfaceSchema))[0];
    const existing = options.vmHadNone ? undefined : await find();
    if (existing) return { outcome: 'unchanged', value: existing };
    try {
      const { data } = await this.http.request('POST', INTERFACES, {
        schema: vmInterfaceSchema,
        body: { virtual_machine: vmId, name, ...fields },
      });
      return { outcome: 'created', value: data };
    } catch (err) {
      // Interface names are unique per VM: when a concurrent attempt won, NetBox refuses ours (400 from
      // validation, or 500 from the database constraint if both passed validation) and theirs shows up now.
      const raced = err instanceof NetboxError && err.status !== undefined ? await find() : undefined;
      if (raced) return { outcome: 'unchanged', value: raced };
      throw err;
    }
  }

  /**
   * Gives the interface the MAC address as its primary MAC (NetBox 4.2+: a MAC is an object of its
   * own, assigned to the interface, and the interface points at it).
   */
  async ensurePrimaryMac(
    interfaceId: number,
    mac: string,
    options: { freshInterface?: boolean } = {},
  ): Promise<{ outcome: Outcome; macId: number }> {
    const wanted = normalizeMac(mac);
    // An interface the caller has just created has no MAC yet: two reads fewer per new VM.
    if (!options.freshInterface) {
      const { data: iface } = await this.http.request('GET', `${INTERFACES}${interfaceId}/`, {
        schema: vmInterfaceSchema,
      });
      if (iface.primary_mac_address && normalizeMac(iface.primary_mac_address.mac_address) === wanted) {
        return { outcome: 'unchanged', macId: iface.primary_mac_address.id };
      }
    }
    const assigned = options.freshInterface ? [] : await this.interfaceMacs(interfaceId);
    let macObject = assigned.find((m) => normalizeMac(m.mac_address) === wanted);
    if (!macObject) {
      macObject = (
        await this.http.request('POST', MACS, {
          schema: macAddressSchema,
          body: { mac_address: wanted, assigned_object_type: VM_INTERFACE_TYPE, assigned_object_id: interfaceId },
        })
      ).data;
    }
    await this.http.request('PATCH', `${INTERFACES}${interfaceId}/`, {
      schema: vmInterfaceSchema,
      body: { primary_mac_address: macObject.id },
    });
    return { outcome: 'updated', macId: macObject.id };
  }

  /** MAC objects assigned to a VM interface. */
  async interfaceMacs(interfaceId: number): Promise<MacAddress[]> {
    return this.http.list(
      MACS,
      { assigned_object_type: VM_INTERFACE_TYPE, assigned_object_id: interfaceId },
      macAddressSchema,
    );
  }

  async deleteMac(id: number): Promise<Outcome> {
    return this.delete(`${MACS}${id}/`);
  }

  async deleteInterface(id: number): Promise<Outcome> {
    return this.delete(`${INTERFACES}${id}/`);
  }

  // ---- IP addresses ------------------------------------------------------------------------------

  /**
   * The prefix `cidr`. The same CIDR may exist once per VRF (and once without): then it is not clear
   * which one to allocate from, and the error names them rather than picking one.
   */
  async getPrefix(cidr: string): Promise<Prefix> {
    const prefixes = await this.http.list(PREFIXES, { prefix: cidr }, prefixSchema);
    const [prefix] = prefixes;
    if (!prefix) throw new NetboxError(`NetBox has no prefix ${cidr}`, 'not-found');
    if (prefixes.length > 1) {
      const where = prefixes.map((p) => `${p.vrf ? `VRF ${p.vrf.name}` : 'global'} (id ${p.id})`).join(', ');
      throw new NetboxError(
        `NetBox has ${prefixes.length} prefixes ${cidr}: ${where}; ferry cannot tell which to allocate from`,
        'invalid',
        {
          details: { prefixIds: prefixes.map((p) => p.id) },
        },
      );
    }
    return prefix;
  }

  /** IP addresses assigned to any interface of a VM. */
  async vmAddresses(vmId: number): Promise<IpAddress[]> {
    return this.http.list(IPS, { virtual_machine_id: vmId }, ipAddressSchema);
  }

  /**
   * A journal entry on a VM (NetBox's own log of what happened to it). `mayExist` (a retry: an earlier
   * attempt may have written it and lost the answer): added only if the newest entries do not already
   * hold this exact text, so a retried write adds it once; a first attempt writes without that read.
   */
  async addVmJournalEntry(
    vmId: number,
    kind: 'info' | 'success' | 'warning' | 'danger',
    comments: string,
    options: { mayExist: boolean } = { mayExist: true },
  ): Promise<Outcome> {
    if (options.mayExist) {
      const { data: recent } = await this.http.request('GET', JOURNAL, {
        schema: z.looseObject({ results: z.array(journalEntrySchema) }),
        query: { assigned_object_type: VM_OBJECT, assigned_object_id: vmId, ordering: '-created', limit: 20 },
      });
      if (recent.results.some((e) => e.comments === comments)) return 'unchanged';
    }
    await this.http.request('POST', JOURNAL, {
      schema: journalEntrySchema,
      body: { assigned_object_type: VM_OBJECT, assigned_object_id: vmId, kind, comments },
    });
    return 'created';
  }

  /** IP addresses assigned to a VM interface. */
  async interfaceAddresses(interfaceId: number): Promise<IpAddress[]> {
    return this.http.list(IPS, { vminterface_id: interfaceId }, ipAddressSchema);
  }

  /**
   * An address from the prefix for the interface: the one it already has there, else the next free
   * one, picked and created by NetBox in one locked transaction (`POST …/available-ips/`), so
   * concurrent allocations never get the same address. Idempotent by interface: a retry finds the
   * address the first attempt created.
   */
  async allocateIp(
    prefix: Prefix,
    interfaceId: number,
    fields: { dnsName?: string; description?: string; status?: string } = {},
    options: { freshInterface?: boolean } = {},
  ): Promise<{ outcome: Outcome; value: IpAddress }> {
    // An interface the caller has just created (and not yet given an address) has none to find.
    const [existing] = options.freshInterface
      ? []
      : await this.http.list(IPS, { vminterface_id: interfaceId, parent: prefix.prefix }, ipAddressSchema);
    if (existing) return { outcome: 'unchanged', value: existing };
    const body = {
      assigned_object_type: VM_INTERFACE_TYPE,
      assigned_object_id: interfaceId,
      status: fields.status ?? 'active',
      ...(fields.dnsName ? { dns_name: fields.dnsName } : {}),
      ...(fields.description ? { description: fields.description } : {}),
    };
    try {
      const { data } = await this.http.request('POST', `${PREFIXES}${prefix.id}/available-ips/`, {
        schema: ipAddressSchema,
        body,
      });
      return { outcome: 'created', value: data };
    } catch (err) {
      if (err instanceof NetboxError && err.status === 409 && !(await this.hasFreeAddress(prefix.id))) {
        throw new NetboxError(`NetBox prefix ${prefix.prefix} has no free address left (${err.message})`, 'invalid', {
          status: 409,
          cause: err,
        });
      }
      // NetBox answers 409 when the prefix is full; with free addresses left, the conflict was something
      // else (a concurrent write, a proxy): a conflict, retried.
      throw err;
    }
  }

  /** Whether the prefix still has a free address (NetBox's own answer, as `available-ips` would pick). */
  private async hasFreeAddress(prefixId: number): Promise<boolean> {
    const free = await this.http.request('GET', `${PREFIXES}${prefixId}/available-ips/`, {
      schema: z.array(z.object({ address: z.string() })),
      query: { limit: 1 },
    });
    return free.data.length > 0;
  }

  /** Makes `ipId` (assigned to one of the VM's interfaces) the VM's primary IPv4 address; a write answers with the VM as written. */
  async setPrimaryIp4(
    vmId: number,
    ipId: number,
    options: { freshIp?: boolean } = {},
  ): Promise<{ outcome: Outcome; vm?: Versioned<VirtualMachine> }> {
    // An address the caller has just created cannot be the VM's primary yet: no read needed.
    if (!options.freshIp && (await this.getVirtualMachine(vmId)).value.primary_ip4?.id === ipId)
      return { outcome: 'unchanged' };
    return { outcome: 'updated', vm: await this.updateVirtualMachine(vmId, { primary_ip4: ipId }) };
  }

  async releaseIp(id: number): Promise<Outcome> {
    return this.delete(`${IPS}${id}/`);
  }

  /** The `ferry_vmid` values NetBox VMs hold within a range (what the VMID allocator must not hand out). */
  async usedVmids(range: { min: number; max: number }): Promise<number[]> {
    const rows = await this.http.list(
      VMS,
      { cf_ferry_vmid__gte: range.min, cf_ferry_vmid__lte: range.max, fields: 'id,custom_fields' },
      vmidOnlySchema,
    );
    return rows.flatMap((r) => (typeof r.custom_fields.ferry_vmid === 'number' ? [r.custom_fields.ferry_vmid] : []));
  }

  /**
   * The VMs that have a `ferry_vmid` (of a cluster, with a tag), read in pages with only the fields a
   * caller needs to start their workflows (`ferry apply --cluster`), not one request per VM.
   */
  async listBuiltVms(filter: { cluster?: string; tag?: string } = {}): Promise<BuiltVmRow[]> {
    return this.http.list(
      VMS,
      {
        cluster: filter.cluster,
        tag: filter.tag,
        cf_ferry_vmid__gte: PVE_VMID_MIN,
        fields: 'id,name,status,custom_fields',
      },
      builtVmSchema,
    );
  }

  /**
   * The whole records (with custom fields and the `ferry_applied` baseline) of the VMs ferry built in a
   * cluster (with a tag), in pages of up to NetBox's MAX_PAGE_SIZE: a drift report, not one read per VM.
   */
  async listBuiltVmRecords(filter: { cluster: string; tag?: string }): Promise<VirtualMachine[]> {
    const query: Query = {
      cluster: filter.cluster,
      tag: filter.tag,
      cf_ferry_vmid__gte: PVE_VMID_MIN,
      limit: LIST_PAGE,
      ...WITHOUT_CONFIG_CONTEXT,
    };
    return this.http.list(VMS, query, virtualMachineSchema);
  }

  /**
   * Several VMs' whole records with their interfaces, virtual disks and IP addresses, each list filtered
   * to these VMs: four requests for up to IDS_PER_QUERY VMs, however many interfaces and disks they have
   * (day 2's reads of many runs coalesced; src/netbox/coalesced-reads.ts). An id NetBox does not have is
   * left out of the map. The VMs are read first: NetBox refuses a `virtual_machine_id` filter naming a VM
   * it does not have (HTTP 400 "Select a valid choice"), so one deleted VM would fail the others' reads.
   */
  async vmsWithHardware(vmIds: readonly number[]): Promise<Map<number, VmWithHardware>> {
    if (vmIds.length > IDS_PER_QUERY) throw new Error(`vmsWithHardware: at most ${IDS_PER_QUERY} ids at once`);
    const page = { limit: LIST_PAGE };
    const vms = await this.http.list(VMS, { id: [...vmIds], ...page, ...WITHOUT_CONFIG_CONTEXT }, virtualMachineSchema);
    if (vms.length === 0) return new Map();
    const ids = vms.map((vm) => vm.id);
    const [interfaces, disks, addresses] = await Promise.all([
      this.http.list(INTERFACES, { virtual_machine_id: ids, ...page }, vmInterfaceSchema),
      this.http.list(VIRTUAL_DISKS, { virtual_machine_id: ids, ...page }, virtualDiskSchema),
      this.http.list(IPS, { virtual_machine_id: ids, ...page }, ipAddressSchema),
    ]);
    const found = new Map<number, VmWithHardware>(
      vms.map((vm) => [vm.id, { vm, interfaces: [], disks: [], addresses: [] }]),
    );
    for (const i of interfaces) found.get(i.virtual_machine.id)?.interfaces.push(i);
    for (const d of disks) found.get(d.virtual_machine.id)?.disks.push(d);
    const vmOfInterface = new Map(interfaces.map((i) => [i.id, i.virtual_machine.id]));
    for (const ip of addresses) {
      const vmId = vmOfInterface.get(ip.assigned_object_id ?? -1);
      if (vmId !== undefined) found.get(vmId)?.addresses.push(ip);
    }
    return found;
  }

  /** Every VM interface of a cluster's VMs, in pages (`cluster` filters interfaces by their VM's cluster). */
  async interfacesOfCluster(cluster: string): Promise<VmInterface[]> {
    return this.http.list(INTERFACES, { cluster, limit: LIST_PAGE }, vmInterfaceSchema);
  }

  /**
   * The virtual disks of many VMs (NetBox filters disks by VM, not by cluster): the ids go in chunks, so a
   * query string stays short however large the cluster, each chunk read in pages.
   */
  async virtualDisksOfVms(vmIds: readonly number[]): Promise<VirtualDisk[]> {
    const disks: VirtualDisk[] = [];
    const unique = [...new Set(vmIds)];
    for (let i = 0; i < unique.length; i += IDS_PER_QUERY) {
      const ids = unique.slice(i, i + IDS_PER_QUERY);
      disks.push(
        ...(await this.http.list(VIRTUAL_DISKS, { virtual_machine_id: ids, limit: LIST_PAGE }, virtualDiskSchema)),
      );
    }
    return disks;
  }

  // ---- ferry's custom fields ---------------------------------------------------------------------

  /**
   * Creates ferry's custom fields (on VMs, and on VM interfaces and virtual disks for those that belong
   * there), or adds the object types a field of that name lacks. A field of that name with another
   * type is an error for a person to resolve.
   */
  async ensureCustomFields(
    fields: readonly FerryCustomField[] = FERRY_CUSTOM_FIELDS,
  ): Promise<Array<{ name: string; outcome: Outcome }>> {
    const results: Array<{ name: string; outcome: Outcome }> = [];
    for (const field of fields) {
      const [existing] = await this.http.list(CUSTOM_FIELDS, { name: field.name }, customFieldSchema);
      results.push({
        name: field.name,
        outcome: existing ? await this.reconcileField(existing, field) : await this.createField(field),
      });
    }
    return results;
  }

  /** ferry's custom fields that NetBox lacks, or has on fewer object types than ferry reads them from. */
  async missingCustomFields(): Promise<string[]> {
    const present = await this.http.list(
      CUSTOM_FIELDS,
      { name: FERRY_CUSTOM_FIELDS.map((f) => f.name) },
      customFieldSchema,
    );
    const complete = (field: FerryCustomField) => {
      const found = present.find((p) => p.name === field.name);
      return found !== undefined && objectTypesOf(field).every((t) => found.object_types.includes(t));
    };
    return FERRY_CUSTOM_FIELDS.filter((f) => !complete(f)).map((f) => f.name);
  }

  private async createField(field: FerryCustomField): Promise<Outcome> {
    await this.http.request('POST', CUSTOM_FIELDS, {
      schema: customFieldSchema,
      body: {
        name: field.name,
        label: field.label,
        type: field.type,
        object_types: objectTypesOf(field),
        description: field.description,
        group_name: 'ferry',
        required: false,
        ...(field.validationMinimum !== undefined ? { validation_minimum: field.validationMinimum } : {}),
        ...(field.validationMaximum !== undefined ? { validation_maximum: field.validationMaximum } : {}),
        ...(field.validationRegex !== undefined ? { validation_regex: field.validationRegex } : {}),
      },
    });
    return 'created';
  }

  private async reconcileField(existing: CustomField, field: FerryCustomField): Promise<Outcome> {
    if (existing.type.value !== field.type) {
      throw new NetboxError(
        `NetBox custom field ${field.name} exists with type ${existing.type.value}; ferry needs ${field.type}. Rename or remove it, then run \`ferry netbox setup\` again`,
        'invalid',
      );
    }
    const lacking = objectTypesOf(field).filter((t) => !existing.object_types.includes(t));
    if (lacking.length === 0) return 'unchanged';
    await this.http.request('PATCH', `${CUSTOM_FIELDS}${existing.id}/`, {
      schema: customFieldSchema,
      body: { object_types: [...existing.object_types, ...lacking] },
    });
    return 'updated';
  }

  // ---- Shared ------------------------------------------------------------------------------------

  /** DELETE that treats "already gone" as success. */
  private async delete(path: string): Promise<Outcome> {
    try {
      await this.http.request('DELETE', path, { schema: anything });
      return 'deleted';
    } catch (err) {
      if (err instanceof NetboxError && err.status === 404) return 'absent';
      throw err;
    }
  }
}

import { getClient } from '@temporalio/activity';
import { fqdn, hostAddress, knownHostNames, type CleanupOutcome, type TeardownResult, type TeardownTarget } from '../src/domain/provisioning';
import { FerryError } from '../src/errors';
import { removeKnownHosts } from '../src/known-hosts/known-hosts';
import { NetboxError } from '../src/netbox/errors';
import type { VirtualMachine } from '../src/netbox/schemas';
import { ProxmoxTaskError } from '../src/proxmox';
import { clientsOf } from './clients';
import { beat } from './heartbeat';
import type { ActivityDeps } from './deps';
import type { TeardownActivities } from './provisioning-contract';

/** Every NetBox VM status (a kept record moves to the configured one from any of them). */
const NETBOX_VM_STATUSES = ['offline', 'active', 'planned', 'staged', 'failed', 'decommissioning', 'paused'];

/** What one cleanup found for each of its objects. */
function outcomeOf(cleanup: CleanupOutcome['cleanup'], results: Array<{ what: string; removed: boolean }>, nothing: string): CleanupOutcome {
  if (results.length === 0) return { cleanup, result: 'already-absent', detail: nothing };
  const removed = results.filter((r) => r.removed).map((r) => r.what);
  const absent = results.filter((r) => !r.removed).map((r) => r.what);
  return {
    cleanup,
    result: removed.length > 0 ? 'done' : 'already-absent',
    detail: [removed.length ? `removed ${removed.join(', ')}` : '', absent.length ? `already absent: ${absent.join(', ')}` : ''].filter(Boolean).join('; '),
  };
}

/** A file system error of known_hosts as a FerryError a person can act on. */
function fileError(file: string, err: unknown): unknown {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') return new FerryError(`known_hosts ${file}: not writable (${code}); give the worker write access`, 'permission', { cause: err });
  if (code === 'EISDIR' || code === 'ENOTDIR') return new FerryError(`known_hosts ${file}: not a file (${code}); fix knownHosts.file`, 'invalid', { cause: err });
  return err;
}

/**
 * The teardown activities: read what a VM has (Proxmox, NetBox, DNS), stop and delete it, and undo
 * each record. Every cleanup looks before it removes and says what it found, so a rerun reports
 * `already-absent` for what an earlier run finished.
 */
export function createTeardownActivities(deps: ActivityDeps): TeardownActivities {
  const { pve, netbox, dns } = clientsOf(deps);
  const zone = deps.config.provisioning?.dnsZone;

  /** The NetBox VM of this VMID: by id when given, else the one whose ferry_vmid is the VMID. */
  async function netboxRecord(vmid: number, netboxId?: number): Promise<VirtualMachine | undefined> {
    if (!deps.netbox) return undefined;
    if (netboxId !== undefined) {
      try {
        return (await netbox().getVirtualMachine(netboxId)).value;
      } catch (err) {
        if (err instanceof NetboxError && err.status === 404) return undefined;
        throw err;
      }
    }
    const found = await netbox().listVirtualMachines({ customFields: { ferry_vmid: vmid } });
    if (found.length > 1) {
      throw new FerryError(`NetBox VMs ${found.map((v) => `"${v.name}" (id ${v.id})`).join(', ')} all hold ferry_vmid ${vmid}; name the one to tear down by its NetBox id`, 'invalid');
    }
    return found[0];
  }

  return {
    async readTeardownTarget({ vmid, netboxId }): Promise<TeardownTarget> {
      const vm = await pve().vms.findById(vmid);
      const record = await netboxRecord(vmid, netboxId);
      const name = record?.name ?? vm?.name;
      const target: TeardownTarget = {
        vmid,
        ...(name ? { name } : {}),
        ...(vm ? { node: vm.node, power: vm.status === 'running' ? 'running' : 'stopped' } : {}),
        ...(record ? { netboxId: record.id, netboxStatus: record.status.value } : {}),
        ...(zone && name ? { fqdn: fqdn(name, zone) } : {}),
        addresses: [],
        interfaces: [],
      };
      if (record) {
        for (const iface of await netbox().listInterfaces(record.id)) {
          target.interfaces.push({ id: iface.id, name: iface.name, macIds: (await netbox().interfaceMacs(iface.id)).map((m) => m.id) });
        }
        target.addresses.push(...(await netbox().vmAddresses(record.id)).map((ip) => ({ address: ip.address, id: ip.id })));
      }
      // DNS knows the address too, even when NetBox no longer does (an earlier run released it).
      if (deps.dns && target.fqdn) {
        for (const address of await dns().lookup(target.fqdn, 'A')) {
          if (!target.addresses.some((a) => hostAddress(a.address) === address)) target.addresses.push({ address });
        }
      }
      return target;
    },

    async previousTeardown({ workflowId, runId }) {
      const client = getClient();
      const runs = [];
      for await (const wf of client.workflow.list({ query: `WorkflowId = '${workflowId}' AND RunId != '${runId}'` })) runs.push(wf);
      const last = runs.sort((a, b) => b.startTime.getTime() - a.startTime.getTime())[0];
      if (!last || last.status.name !== 'COMPLETED') return undefined;
      const result = await client.workflow.getHandle(workflowId, last.runId).result() as TeardownResult;
      return result.outcome === 'incomplete' ? result.target : undefined;
    },

    async shutdownVm({ node, vmid, timeoutMs }) {
      if ((await pve().power.status(node, vmid)).status === 'stopped') return { result: 'already-stopped' };
      try {
        await pve().power.shutdown(node, vmid, { timeoutS: Math.max(1, Math.ceil(timeoutMs / 1000)), forceStop: false }, { onProgress: beat });
        return { result: 'shut-down' };
      } catch (err) {
        if (err instanceof ProxmoxTaskError && /timeout/i.test(err.exitstatus)) return { result: 'timed-out' };
        throw err;
      }
    },

    async deleteVm({ node, vmid }) {
      const { deleted } = await pve().vms.delete(node, vmid, { purge: true, destroyUnreferencedDisks: true }, { onProgress: beat });
      return { deleted };
    },

    async cleanupDns({ target }) {
      if (!deps.dns) return { cleanup: 'dns', result: 'skipped', detail: 'DNS is not configured for this worker' };
      if (!target.fqdn) return { cleanup: 'dns', result: 'skipped', detail: 'no DNS name (provisioning.dnsZone is not set, or the VM has no name)' };
      const results: Array<{ what: string; removed: boolean }> = [];
      // PTR first: while the A record stays, a rerun can still find the address from it.
      for (const { address } of target.addresses) {
        const host = hostAddress(address);
        results.push({ what: `PTR ${host}`, removed: (await dns().deletePtr(host, target.fqdn)) === 'deleted' });
      }
      for (const { address } of target.addresses) {
        const host = hostAddress(address);
        results.push({ what: `${target.fqdn} A ${host}`, removed: (await dns().deleteA(target.fqdn, host)) === 'deleted' });
      }
      return outcomeOf('dns', results, `no address of ${target.fqdn} in NetBox or DNS`);
    },

    async cleanupKnownHosts({ target }) {
      const file = deps.config.knownHosts?.file;
      if (!file) return { cleanup: 'known-hosts', result: 'skipped', detail: 'knownHosts.file is not configured' };
      const hosts = knownHostNames(target);
      if (hosts.length === 0) return { cleanup: 'known-hosts', result: 'already-absent', detail: 'no name or address known for the VM' };
      let removal;
      try {
        removal = await removeKnownHosts(file, hosts, deps.config.knownHosts?.ports);
      } catch (err) {
        throw fileError(file, err);
      }
      return removal.removed.length > 0
        ? { cleanup: 'known-hosts', result: 'done', detail: `removed ${removal.removed.length} line(s) of ${file} (${[...new Set(removal.removed.map((r) => r.host))].join(', ')})` }
        : { cleanup: 'known-hosts', result: 'already-absent', detail: `${file} has no entry for ${hosts.join(', ')}` };
    },

    async cleanupIps({ target }) {
      if (!deps.netbox) return { cleanup: 'ip', result: 'skipped', detail: 'NetBox is not configured for this worker' };
      const results = [];
      for (const { address, id } of target.addresses.filter((a) => a.id !== undefined)) {
        results.push({ what: address, removed: (await netbox().releaseIp(id!)) === 'deleted' });
      }
      return outcomeOf('ip', results, 'no NetBox address');
    },

    async cleanupInterfaces({ target }) {
      if (!deps.netbox) return { cleanup: 'interfaces', result: 'skipped', detail: 'NetBox is not configured for this worker' };
      const results = [];
      for (const iface of target.interfaces) {
        const macIds = new Set(iface.macIds);
        for (const mac of await netbox().interfaceMacs(iface.id)) macIds.add(mac.id);
        for (const id of macIds) results.push({ what: `MAC object ${id} of ${iface.name}`, removed: (await netbox().deleteMac(id)) === 'deleted' });
        results.push({ what: `interface ${iface.name}`, removed: (await netbox().deleteInterface(iface.id)) === 'deleted' });
      }
      return outcomeOf('interfaces', results, 'no NetBox interface');
    },

    async cleanupNetboxVm({ target, after }) {
      if (!deps.netbox) return { cleanup: 'netbox-vm', result: 'skipped', detail: 'NetBox is not configured for this worker' };
      if (target.netboxId === undefined) return { cleanup: 'netbox-vm', result: 'already-absent', detail: `no NetBox VM holds ferry_vmid ${target.vmid}` };
      const what = `NetBox VM ${target.netboxId}`;
      if (after === 'delete') {
        const deleted = (await netbox().deleteVirtualMachine(target.netboxId)) === 'deleted';
        return { cleanup: 'netbox-vm', result: deleted ? 'done' : 'already-absent', detail: deleted ? `deleted ${what}` : `${what} is gone` };
      }
      try {
        const { outcome, guarded } = await netbox().transitionStatus(target.netboxId, NETBOX_VM_STATUSES.filter((s) => s !== after), after);
        const unguarded = outcome === 'updated' && !guarded ? ' (unguarded: NetBox sent no ETag, a change made meanwhile was overwritten if any)' : '';
        return { cleanup: 'netbox-vm', result: outcome === 'updated' ? 'done' : 'already-absent', detail: `${what} ${outcome === 'updated' ? 'set' : 'already'} ${after}${unguarded}` };
      } catch (err) {
        if (err instanceof NetboxError && err.status === 404) return { cleanup: 'netbox-vm', result: 'already-absent', detail: `${what} is gone` };
        throw err;
      }
    },
  };
}

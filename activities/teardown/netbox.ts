import type { CleanupOutcome, NetboxAfterTeardown, TeardownTarget } from '../../src/domain/provisioning';
import type { NetboxClient } from '../../src/netbox/client';
import { NetboxError } from '../../src/netbox/errors';
import { clientsOf } from '../clients';
import type { ActivityDeps } from '../deps';
import type { TeardownActivities } from '../provisioning-contract';
import { writeIntent, type WriteIntent } from '../write-intent';
import { outcomeOf, removal } from './outcome';

/** Every NetBox VM status (a kept record moves to the configured one from any of them). */
const NETBOX_VM_STATUSES = ['offline', 'active', 'planned', 'staged', 'failed', 'decommissioning', 'paused'];

/** Undoes the VM's NetBox records: addresses, interfaces with their MACs, and the VM (deleted or kept with a status). */
export function createNetboxCleanupActivities(
  deps: ActivityDeps,
): Pick<TeardownActivities, 'cleanupIps' | 'cleanupInterfaces' | 'cleanupNetboxVm'> {
  const { netbox } = clientsOf(deps);
  return {
    async cleanupIps({ target }) {
      if (!deps.netbox) return { cleanup: 'ip', result: 'skipped', detail: 'NetBox is not configured for this worker' };
      const results = [];
      const intent = writeIntent();
      for (const { address, id } of target.addresses.filter((a) => a.id !== undefined)) {
        results.push(await removal(intent, address, async () => (await netbox().releaseIp(id!)) === 'deleted'));
      }
      return outcomeOf('ip', results, 'no NetBox address');
    },

    async cleanupInterfaces({ target }) {
      if (!deps.netbox)
        return { cleanup: 'interfaces', result: 'skipped', detail: 'NetBox is not configured for this worker' };
      const results = [];
      const intent = writeIntent();
      for (const iface of target.interfaces) results.push(...(await removeInterface(netbox, intent, iface)));
      return outcomeOf('interfaces', results, 'no NetBox interface');
    },

    async cleanupNetboxVm({ target, after }) {
      if (!deps.netbox)
        return { cleanup: 'netbox-vm', result: 'skipped', detail: 'NetBox is not configured for this worker' };
      if (target.netboxId === undefined)
        return {
          cleanup: 'netbox-vm',
          result: 'already-absent',
          detail: `no NetBox VM holds ferry_vmid ${target.vmid}`,
        };
      const intent = writeIntent();
      if (after === 'delete') return deleteNetboxVm(netbox, intent, target.netboxId);
      return setNetboxVmStatus(netbox, intent, target.netboxId, after);
    },
  };
}

/** The interface's MAC objects (those read with the target and those it has now), then the interface. */
async function removeInterface(
  netbox: () => NetboxClient,
  intent: WriteIntent,
  iface: TeardownTarget['interfaces'][number],
): Promise<Array<{ what: string; removed: boolean }>> {
  const results = [];
  const macIds = new Set(iface.macIds);
  for (const mac of await netbox().interfaceMacs(iface.id)) macIds.add(mac.id);
  for (const id of macIds)
    results.push(
      await removal(
        intent,
        `MAC object ${id} of ${iface.name}`,
        async () => (await netbox().deleteMac(id)) === 'deleted',
      ),
    );
  results.push(
    await removal(
      intent,
      `interface ${iface.name}`,
      async () => (await netbox().deleteInterface(iface.id)) === 'deleted',
    ),
  );
  return results;
}

async function deleteNetboxVm(
  netbox: () => NetboxClient,
  intent: WriteIntent,
  netboxId: number,
): Promise<CleanupOutcome> {
  const what = `NetBox VM ${netboxId}`;
  const { removed: deleted } = await removal(
    intent,
    what,
    async () => (await netbox().deleteVirtualMachine(netboxId)) === 'deleted',
  );
  return {
    cleanup: 'netbox-vm',
    result: deleted ? 'done' : 'already-absent',
    detail: deleted ? `deleted ${what}` : `${what} is gone`,
  };
}

/** The kept record moved to the configured status from whichever it has. */
async function setNetboxVmStatus(
  netbox: () => NetboxClient,
  intent: WriteIntent,
  netboxId: number,
  after: Exclude<NetboxAfterTeardown, 'delete'>,
): Promise<CleanupOutcome> {
  const what = `NetBox VM ${netboxId}`;
  try {
    intent.start(`${what} ${after}`);
    const { guarded, ...found } = await netbox().transitionStatus(
      netboxId,
      NETBOX_VM_STATUSES.filter((s) => s !== after),
      after,
    );
    const outcome =
      found.outcome !== 'updated' && intent.startedEarlier(`${what} ${after}`) ? 'updated' : found.outcome;
    const unguarded =
      outcome === 'updated' && !guarded
        ? ' (unguarded: NetBox sent no ETag, a change made meanwhile was overwritten if any)'
        : '';
    return {
      cleanup: 'netbox-vm',
      result: outcome === 'updated' ? 'done' : 'already-absent',
      detail: `${what} ${outcome === 'updated' ? 'set' : 'already'} ${after}${unguarded}`,
    };
  } catch (err) {
    if (err instanceof NetboxError && err.status === 404)
      return { cleanup: 'netbox-vm', result: 'already-absent', detail: `${what} is gone` };
    throw err;
  }
}

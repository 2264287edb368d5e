import { cancellationSignal } from '@temporalio/activity';
import { ambiguousNameMessage, selectVms } from '../../src/domain/migration';
import { FerryError } from '../../src/errors';
import { VsphereFault, type VsphereClient } from '../../src/vsphere';
import { clientsOf } from '../clients';
import type { ActivityDeps } from '../deps';
import { beatOperation, beatProgress, beatWhile } from '../heartbeat';
import type { VsphereMigrationActivities } from '../migration-contract';
import { earlierRelocation } from './task-rejoin';

const CANCEL_SETTLE_MS = 10 * 60_000;

/**
 * Waits until the VM has no storage vMotion queued or running (a cancelled task may take a while to
 * undo its copy), heartbeating, for at most ten minutes.
 */
async function relocationsEnded(vsphere: VsphereClient, moid: string): Promise<void> {
  const started = Date.now();
  const deadline = started + CANCEL_SETTLE_MS;
  for (;;) {
    const running = await vsphere.runningRelocations(moid);
    beatProgress({
      phase: 'relocate-cancel',
      elapsedMs: Date.now() - started,
      ...(running[0] ? { task: running[0].task } : {}),
    });
    if (running.length === 0 || Date.now() > deadline) return;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

/** The vCenter's name in workflow ids and records (vsphere.name, else its host). */
export function vcenterName(deps: ActivityDeps): string {
  const vsphere = clientsOf(deps).vsphere();
  return vsphere.config.name ?? vsphere.config.host;
}

/** Discovery, storage vMotion and guest power on vCenter. */
export function createVsphereMigrationActivities(deps: ActivityDeps): VsphereMigrationActivities {
  const { vsphere } = clientsOf(deps);
  return {
    async discoverWave(selection) {
      const { inventory } = await beatWhile('discovery', vsphere().discover());
      const tagged = selection.tag
        ? new Set(await beatWhile('tagged VMs', vsphere().vmsTagged(selection.tag)))
        : undefined;
      const { vms, missingNames, ambiguousNames } = selectVms(inventory.vms, selection, tagged);
      if (missingNames.length > 0)
        throw new FerryError(`not found in vCenter ${inventory.vcenter}: ${missingNames.join(', ')}`, 'invalid');
      // A name two VMs share is refused before anything is built: migrating both would be a guess.
      if (ambiguousNames.length > 0)
        throw new FerryError(
          `ambiguous in vCenter ${inventory.vcenter}: ${ambiguousNames.map(ambiguousNameMessage).join('; ')}`,
          'invalid',
        );
      if (vms.length === 0)
        throw new FerryError(
          `the selection ${JSON.stringify(selection)} matches no VM in vCenter ${inventory.vcenter}`,
          'invalid',
        );
      return {
        vcenter: vcenterName(deps),
        vms,
        portgroups: inventory.portgroups,
        datastoresByVm: Object.fromEntries(vms.map((vm) => [vm.moid, vm.datastores ?? []])),
      };
    },

    async readVmForMigration({ moid }) {
      // This VM alone (a wave's VMs each read their own: the whole inventory per VM was quadratic).
      const { vm, portgroups } = await vsphere().readVmWithNetworks(moid);
      const keys = new Set(vm.nics.flatMap((n) => (n.backing.kind === 'dvportgroup' ? [n.backing.portgroupKey] : [])));
      return {
        vcenter: vcenterName(deps),
        vm,
        portgroups: portgroups.filter((pg) => keys.has(pg.key)),
        datastores: vm.datastores ?? [],
      };
    },

    async rereadVm({ moid }) {
      return vsphere().readVm(moid);
    },

    async relocateVm({ moid, datastore }) {
      // A retry after the worker died: wait for the vMotion it started (vCenter would refuse a second one).
      const earlier = await earlierRelocation(vsphere(), moid);
      if (earlier) {
        try {
          await vsphere().waitForRelocation(moid, earlier, { onProgress: beatOperation, signal: cancellationSignal() });
          return { moved: true };
        } catch (err) {
          // That task failed or is forgotten: say so in the heartbeat (so it is not rejoined again) and start afresh.
          if (!(err instanceof VsphereFault)) throw err;
          beatProgress({ phase: 'relocate', elapsedMs: 0, earlierTask: earlier, earlierError: err.message });
        }
      }
      try {
        const result = await vsphere().relocateVmStorage(moid, datastore, {
          onProgress: beatOperation,
          signal: cancellationSignal(),
        });
        return { moved: result.moved };
      } catch (err) {
        // Cancelled (ferry cancel): vCenter was asked to cancel the task; the activity ends only once the task has.
        if (cancellationSignal().aborted) await relocationsEnded(vsphere(), moid);
        throw err;
      }
    },

    async readVmAfterCancel({ moid }) {
      const vm = await vsphere().readVm(moid);
      const relocation = await vsphere().latestRelocation(moid);
      return {
        powerState: vm.powerState,
        disks: vm.disks.map((d) => ({ label: d.label, datastore: d.datastore?.name })),
        ...(relocation ? { relocation: { task: relocation.task, state: relocation.state } } : {}),
      };
    },

    async shutdownGuest({ moid, timeoutMs, force }) {
      const result = await vsphere().shutdownGuest(moid, {
        timeoutMs,
        force,
        onProgress: beatOperation,
        signal: cancellationSignal(),
      });
      const map = {
        'already-off': 'already-off',
        'guest-shutdown': 'shut-down',
        'powered-off': 'powered-off',
      } as const;
      return { result: map[result.outcome] };
    },

    async powerOnVm({ moid }) {
      const result = await vsphere().powerOn(moid, { onProgress: beatOperation, signal: cancellationSignal() });
      return { result: result.outcome };
    },
  };
}

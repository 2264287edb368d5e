import { activityInfo, Context } from '@temporalio/activity';
import { GuestConverter } from '../../src/conversion/converter';
import type { ConversionActivities } from '../conversion-contract';
import type { ActivityDeps } from '../deps';
import { beatWhile } from '../heartbeat';

/**
 * Guest conversion on a convert worker: its mounts of the storages come from migration.datastores
 * (`convertPath`, else `path`), the appliance's accelerator and CPU priority from migration.conversion.
 */
export function createConversionActivities(deps: ActivityDeps): ConversionActivities {
  let converter: GuestConverter | undefined;
  const convert = () => {
    const m = deps.config.migration;
    converter ??= new GuestConverter({
      storageRoots: Object.fromEntries((m?.datastores ?? []).map((d) => [d.storage, d.convertPath ?? d.path])),
      accel: m?.conversion.accel ?? 'auto',
      priority: m?.conversion.priority ?? 'low',
    });
    return converter;
  };
  return {
    async inspectGuest({ storage, disks, firmware, agentPackages }) {
      return await beatWhile(
        'inspect the guest (libguestfs, read-only)',
        convert().inspect({ storage, disks }, firmware, agentPackages),
      );
    },

    async convertGuest({ vmid, storage, disks, facts, settings }) {
      const context = Context.current();
      let step = 'starting';
      const since = Date.now();
      // virt-v2v's steps can take minutes each (an initramfs rebuild under TCG): beat on a timer, with the step.
      const every = Math.max(100, Math.floor((activityInfo().heartbeatTimeoutMs ?? 60_000) / 3));
      // While it yields to a cutover on this worker, the heartbeat (status, the UI's pending activity) says so.
      const yielding = () => (deps.conversionYield?.paused ? ' (paused: a cutover runs on this worker)' : '');
      const timer = setInterval(
        () => context.heartbeat({ phase: `convert: ${step}${yielding()}`, elapsedMs: Date.now() - since }),
        every,
      );
      try {
        return await convert().convert({
          vmid,
          storage,
          disks,
          facts,
          settings,
          signal: context.cancellationSignal,
          onProgress: (s) => (step = s),
        });
      } finally {
        clearInterval(timer);
      }
    },

    async createOverlays({ vmid, storage, disks }) {
      return { overlays: await convert().prepareOverlays({ vmid, storage, disks }) };
    },

    async removeConversionOverlays({ vmid, storage, disks }) {
      return { removed: await convert().removeOverlays({ vmid, storage, disks }) };
    },
  };
}

import { PERMIT_KEYS } from '../../../src/domain/permits';
import { failureMessage } from '../../failures';
import { underPermit } from '../../vm/permit';
import { permitLeaseMs } from '../../vm/proxies';
import type { MigrationRun } from '../run-context';
import { conversionFacts, conversionPlanOf } from './conversion-facts';

/** Whether the guest is converted at this cutover: its plan says so and conversion is configured. */
export function converts(run: MigrationRun): boolean {
  return conversionPlanOf(run)?.convert === true && run.settings.rules.conversion !== undefined;
}

/**
 * After the shutdown, before the disks come in: the guest is converted on qcow2 overlays of its VMDKs
 * (virt-v2v-in-place and ferry's own edits, on the convert queue under the global convert permit), and
 * the disks then come in from the overlays. VMware's files are only read. A conversion that fails
 * waits for a person (retry or rollback), as any cutover failure does; a retry answers from the
 * finished conversion's record, or converts again on new overlays.
 */
export async function convertGuest(run: MigrationRun): Promise<undefined> {
  const plan = conversionPlanOf(run)!;
  const conversion = run.settings.rules.conversion!;
  const { assessment, vmid } = run.vm;
  const { settings, sources } = run;
  const first = sources[assessment.disks[0]!.slot]!;
  const disks = assessment.disks.map((d) => ({ slot: d.slot, source: sources[d.slot]!.source }));
  run.status.conversion = { ...run.status.conversion, plan };
  run.status.overlays = { storage: first.storage, disks };
  const permit = {
    key: PERMIT_KEYS.convert,
    permits: settings.limits.convert ?? 2,
    leaseMs: permitLeaseMs(conversion.timeoutMs),
    label: `convert ${assessment.name}`,
  };
  const slots = disks.map((d) => d.slot).join(', ');
  const result = await underPermit(run, permit, () =>
    run.acts
      .conversion(conversion.timeoutMs)
      .convertGuest.executeWithOptions(
        { summary: `convert the guest of ${assessment.name} (virt-v2v-in-place on overlays of ${slots})` },
        [{ vmid, storage: first.storage, disks, facts: conversionFacts(run), settings: conversion }],
      ),
  );
  const recorded = run.status.actions.some((a) => a.kind === 'convert-guest');
  run.status.conversion = { ...run.status.conversion, plan: result.plan, result };
  if (!result.converted) return undefined;
  if (!recorded) run.record({ kind: 'convert-guest', vm: assessment.pveName, vmid, slots: disks.map((d) => d.slot) });
  const mapping = settings.datastores.find((m) => m.storage === first.storage)!;
  for (const o of result.overlays) {
    const file = o.volume.slice(o.volume.indexOf(':') + 1);
    run.sources[o.slot] = {
      ...sources[o.slot]!,
      importVolume: o.volume,
      absolutePath: `${mapping.path.replace(/\/+$/, '')}/images/${file}`,
    };
  }
  return undefined;
}

/**
 * Drops the overlays once the disks are in Proxmox (or on rollback). Not a reason to fail a migration
 * that succeeded: a failure leaves a warning that names the folder.
 */
export async function removeOverlays(run: MigrationRun): Promise<undefined> {
  const record = run.status.overlays;
  const conversion = run.settings.rules.conversion;
  if (!record || !conversion || record.removed) return undefined;
  const { assessment, vmid } = run.vm;
  const { storage, disks } = record;
  try {
    const { removed } = await run.acts
      .conversion(conversion.timeoutMs)
      .removeConversionOverlays.executeWithOptions({ summary: `drop the overlays of ${assessment.name}` }, [
        { vmid, storage, disks },
      ]);
    run.status.overlays = { ...record, removed };
  } catch (err) {
    run.status.overlays = {
      ...record,
      cleanupWarning: `the overlays in images/${vmid}/ on ${storage} were not removed: ${failureMessage(err)}`,
    };
  }
  return undefined;
}

import { PERMIT_KEYS } from '../../../src/domain/permits';
import { withPermit } from '../../permits';
import { failureMessage } from '../../failures';
import { conversions, permitLeaseMs } from '../proxies';
import type { MigrationRun } from '../run-context';
import { conversionFacts, conversionPlanOf } from './conversion-facts';
import type { DiskSources } from './disk-sources';

/**
 * After the shutdown, before the disks come in: the guest is converted on qcow2 overlays of its VMDKs
 * (virt-v2v-in-place and ferry's own edits, on the convert queue under the global convert permit), and
 * the disks then come in from the overlays. VMware's files are only read. A conversion that fails
 * waits for a person (retry or rollback), as any cutover failure does; a retry answers from the
 * finished conversion's record, or converts again on new overlays.
 */
export async function convertGuest(run: MigrationRun, sources: DiskSources): Promise<DiskSources> {
  const plan = conversionPlanOf(run);
  const conversion = run.settings.rules.conversion;
  if (!plan?.convert || !conversion) return sources;
  run.enter('convert');
  const { assessment, vmid } = run.vm;
  const { settings } = run;
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
  const result = await withPermit(permit, async ({ waitedMs }) => {
    run.waited({ for: 'convert permit', waitedMs });
    return await conversions(settings.heartbeatTimeoutMs, conversion.timeoutMs).convert.convertGuest.executeWithOptions(
      {
        summary: `convert the guest of ${assessment.name} (virt-v2v-in-place on overlays of ${disks.map((d) => d.slot).join(', ')})`,
      },
      [{ vmid: vmid, storage: first.storage, disks, facts: conversionFacts(run), settings: conversion }],
    );
  });
  const recorded = run.status.actions.some((a) => a.kind === 'convert-guest');
  run.status.conversion = { ...run.status.conversion, plan: result.plan, result };
  if (!result.converted) return sources;
  if (!recorded) run.record({ kind: 'convert-guest', vm: assessment.pveName, vmid, slots: disks.map((d) => d.slot) });
  const mapping = settings.datastores.find((m) => m.storage === first.storage)!;
  const converted: DiskSources = { ...sources };
  for (const o of result.overlays) {
    const file = o.volume.slice(o.volume.indexOf(':') + 1);
    converted[o.slot] = {
      ...sources[o.slot]!,
      importVolume: o.volume,
      absolutePath: `${mapping.path.replace(/\/+$/, '')}/images/${file}`,
    };
  }
  return converted;
}

/**
 * Drops the overlays once the disks are in Proxmox (or on rollback). Not a reason to fail a migration
 * that succeeded: a failure leaves a warning that names the folder.
 */
export async function removeOverlays(run: MigrationRun): Promise<void> {
  const record = run.status.overlays;
  const conversion = run.settings.rules.conversion;
  if (!record || !conversion || record.removed) return;
  const { assessment, vmid } = run.vm;
  const { storage, disks } = record;
  try {
    const { removed } = await conversions(
      run.settings.heartbeatTimeoutMs,
      conversion.timeoutMs,
    ).convert.removeConversionOverlays.executeWithOptions({ summary: `drop the overlays of ${assessment.name}` }, [
      { vmid, storage, disks },
    ]);
    run.status.overlays = { ...record, removed };
  } catch (err) {
    run.status.overlays = {
      ...record,
      cleanupWarning: `the overlays in images/${vmid}/ on ${storage} were not removed: ${failureMessage(err)}`,
    };
  }
}

import { conversionPlan } from '../../../src/domain/conversion';
import { conversionDisksOf, type MigrateVmResult } from '../../../src/domain/migration';
import { failureMessage } from '../../failures';
import { conversions, reads } from '../proxies';
import type { MigrationRun } from '../run-context';
import { conversionFacts } from './conversion-facts';

/**
 * Before the approval, for a VM whose guest conversion would run: reads the guest on its VMDKs, now on
 * the migration datastore (read-only; the guest still runs on VMware), so that the cutover plan a person
 * approves says what conversion will do: the OS, NIC name pins, the agent, the packages virt-v2v removes,
 * or why nothing will be converted. An inspection that cannot run leaves the plan from vCenter's facts,
 * with a warning: the cutover inspects the guest again.
 */
export async function inspectGuest(run: MigrationRun): Promise<MigrateVmResult | undefined> {
  const planned = run.vm.assessment.conversion;
  if (!planned?.convert) return undefined;
  run.enter('inspect');
  const { settings } = run;
  const conversion = settings.rules.conversion!;
  const keep = (warning: string) => {
    run.status.conversion = { plan: { ...planned, warnings: [...planned.warnings, warning] } };
    return undefined;
  };
  const fresh = await reads.rereadVm.executeWithOptions({ summary: `read VM ${run.moid} again in vCenter (its disks after the vMotion)` }, [{ moid: run.moid }]);
  const target = conversionDisksOf(run.vm.assessment, fresh.disks, settings.datastores, settings.migrationDatastore);
  if ('problem' in target) return keep(`the disks could not be inspected before the approval (${target.problem}); the cutover inspects the guest`);
  try {
    const inspection = await conversions(settings.heartbeatTimeoutMs, conversion.timeoutMs).inspect.inspectGuest.executeWithOptions(
      { summary: `inspect the guest of ${run.vm.assessment.name} on its VMDKs (read-only)` },
      [{ ...target, firmware: run.vm.snapshot.vm.firmware, agentPackages: conversion.agentPackages }],
    );
    run.status.conversion = { plan: conversionPlan(conversionFacts(run), conversion, inspection) };
  } catch (err) {
    return keep(`the inspection failed (${failureMessage(err)}); the cutover inspects the guest again`);
  }
  return undefined;
}

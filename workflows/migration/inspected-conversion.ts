import { conversionPlan, type ConversionPlan } from '../../src/domain/conversion';
import type { VmDisk } from '../../src/domain/inventory';
import {
  conversionDisksOf,
  conversionFactsOf,
  type MigrationSettings,
  type VmAssessment,
} from '../../src/domain/migration';
import { failureMessage } from '../failures';
import type { ActivityProfiles } from '../vm/proxies';

/**
 * A VM's conversion plan from its disks: the guest read on its VMDKs on the migration datastore
 * (read-only, a convert worker's libguestfs). `unread` says why it was not: its disks are elsewhere yet,
 * or the inspection failed; the plan from vCenter's facts then stands.
 */
export async function inspectedConversion(
  acts: ActivityProfiles,
  assessment: VmAssessment,
  vmDisks: ReadonlyArray<Pick<VmDisk, 'label' | 'fileName'>>,
  firmware: 'bios' | 'efi',
  settings: MigrationSettings,
): Promise<{ plan: ConversionPlan } | { unread: 'elsewhere' | 'failed'; why: string }> {
  const conversion = settings.rules.conversion!;
  const target = conversionDisksOf(assessment, vmDisks, settings.datastores, settings.migrationDatastore);
  if ('problem' in target) return { unread: 'elsewhere', why: target.problem };
  try {
    const inspection = await acts.inspection.inspectGuest.executeWithOptions(
      { summary: `inspect the guest of ${assessment.name} on its VMDKs (read-only)` },
      [{ ...target, firmware, agentPackages: conversion.agentPackages }],
    );
    return { plan: conversionPlan(conversionFactsOf(assessment, firmware), conversion, inspection) };
  } catch (err) {
    return { unread: 'failed', why: failureMessage(err) };
  }
}

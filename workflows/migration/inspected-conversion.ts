import { conversionPlan, type ConversionPlan } from '../../src/domain/conversion';
import type { VmDisk } from '../../src/domain/inventory';
import {
  conversionDisksOf,
  conversionFactsOf,
  type MigrationSettings,
  type VmAssessment,
} from '../../src/domain/migration';
import { failureMessage } from '../failures';
import { conversions } from './proxies';

/**
 * A VM's conversion plan from its disks: the guest read on its VMDKs on the migration datastore
 * (read-only, a convert worker's libguestfs). `unread` says why it was not: its disks are elsewhere yet,
 * or the inspection failed; the plan from vCenter's facts then stands.
 */
export async function inspectedConversion(
  a: VmAssessment,
  vmDisks: ReadonlyArray<Pick<VmDisk, 'label' | 'fileName'>>,
  firmware: 'bios' | 'efi',
  settings: MigrationSettings,
): Promise<{ plan: ConversionPlan } | { unread: 'elsewhere' | 'failed'; why: string }> {
  const conversion = settings.rules.conversion!;
  const target = conversionDisksOf(a, vmDisks, settings.datastores, settings.migrationDatastore);
  if ('problem' in target) return { unread: 'elsewhere', why: target.problem };
  try {
    const inspection = await conversions(
      settings.heartbeatTimeoutMs,
      conversion.timeoutMs,
    ).inspect.inspectGuest.executeWithOptions({ summary: `inspect the guest of ${a.name} on its VMDKs (read-only)` }, [
      { ...target, firmware, agentPackages: conversion.agentPackages },
    ]);
    return { plan: conversionPlan(conversionFactsOf(a, firmware), conversion, inspection) };
  } catch (err) {
    return { unread: 'failed', why: failureMessage(err) };
  }
}

import type { MigrationSettings } from '../domain/migration/settings';
import { approvalPolicy, approverNames } from './approvers';
import { durationToMs } from './common';
import { conversionSettings } from './conversion';
import { haSettings } from './ha';
import { placementSettings } from './placement';
import type { FerryConfig, MigrationConfig } from './schema';

/**
 * The `migration:` and `limits:` sections as the settings a migration run carries (durations in ms,
 * the EFI storage defaulted). `vcenter` names the vCenter in workflow ids and records.
 */
export function migrationSettings(
  m: MigrationConfig,
  limits: FerryConfig['limits'],
  vcenter: string,
): MigrationSettings {
  return {
    vcenter,
    node: m.node,
    targetStorage: m.targetStorage,
    migrationDatastore: m.migrationDatastore,
    datastores: m.datastores,
    rules: {
      vmidBase: m.vmidBase,
      network: m.network,
      nicModel: m.nicModel,
      diskBus: m.diskBus,
      efiStorage: m.efiStorage ?? m.targetStorage,
      isoMap: m.isoMap,
      tpm: m.tpm,
      conversion: conversionSettings(m.conversion),
    },
    approvers: approverNames(m.approvers),
    approvals: approvalPolicy(m.approvals, m.approvers),
    relocateTimeoutMs: durationToMs(m.relocateTimeout),
    heartbeatTimeoutMs: durationToMs(m.heartbeatTimeout),
    cutover: {
      mode: m.cutover.mode,
      shutdownTimeoutMs: durationToMs(m.cutover.shutdownTimeout),
      forcePowerOff: m.cutover.forcePowerOff,
      startAfter: m.cutover.startAfter,
      ...(m.cutover.approvalDeadline !== undefined
        ? { approvalDeadlineMs: durationToMs(m.cutover.approvalDeadline) }
        : {}),
      importTimeoutMs: durationToMs(m.cutover.importTimeout),
      guestAgent: m.cutover.guestAgent,
      ...(m.cutover.moveBandwidth !== undefined ? { moveBandwidthMiBps: m.cutover.moveBandwidth } : {}),
    },
    verify: {
      enabled: m.verify.enabled,
      agentTimeoutMs: durationToMs(m.verify.agentTimeout),
      networkTimeoutMs: durationToMs(m.verify.networkTimeout),
      probeTimeoutMs: durationToMs(m.verify.probeTimeout),
      pollIntervalMs: durationToMs(m.verify.pollInterval),
      probes: m.verify.probes,
      onFailure: m.verify.onFailure,
      expect: m.verify.expect,
      skip: m.verify.skip,
    },
    limits,
    ...placementOf(m),
    ...haSettings(m.ha),
  };
}

function placementOf(m: MigrationConfig): Pick<MigrationSettings, 'placement'> {
  const placement = placementSettings(m);
  return placement ? { placement } : {};
}

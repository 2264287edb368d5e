import { upsertSearchAttributes } from '@temporalio/workflow';
import { sdnActions, type MigrationAction, type PlannedVnet, type UntranslatedNetwork } from '../src/domain/migration';
import { PERMIT_KEYS } from '../src/domain/permits';
import { FerryKind, FerryStage, WaveId } from '../src/domain/search-attributes';
import { activityProfiles, reads } from './vm/proxies';
import { withPermit } from './permits';

export interface SdnSyncInput {
  zone: { id: string; bridge: string };
  vnets: PlannedVnet[];
  /** Permits of the `sdn` limit if this run starts its semaphore. */
  permits: number;
  waveId?: string;
  /** Networks the wave could not translate, reported back with the result. */
  untranslated?: UntranslatedNetwork[];
  heartbeatTimeoutMs?: number;
}

export interface SdnSyncResult {
  actions: MigrationAction[];
  untranslated: UntranslatedNetwork[];
}

/**
 * Creates ferry's VLAN zone and the VNets a wave needs, and applies once. Runs under the `sdn` permit
 * (Proxmox takes a cluster-wide lock for SDN writes); on PVE 9 the client holds the SDN lock and rolls
 * back on failure.
 */
export async function sdnSync(input: SdnSyncInput): Promise<SdnSyncResult> {
  upsertSearchAttributes([
    { key: FerryKind, value: 'sdn-sync' },
    { key: FerryStage, value: 'sdn' },
    ...(input.waveId ? [{ key: WaveId, value: input.waveId }] : []),
  ]);
  // Decide from what exists (the same rule `plan` uses), then make it so under the permit.
  const actions = sdnActions(
    { zone: input.zone, vnets: input.vnets },
    await reads.readSdnState.executeWithOptions({ summary: 'read the SDN zones and VNets' }, []),
  );
  if (actions.length > 0) {
    const summary = `create ${actions.flatMap((a) => (a.kind === 'create-vnet' ? [a.vnet] : [])).join(', ')} in SDN zone ${input.zone.id}; apply`;
    await withPermit(
      { key: PERMIT_KEYS.sdn, permits: input.permits, leaseMs: 30 * 60_000, label: `sdn ${input.zone.id}` },
      () =>
        activityProfiles({ heartbeatTimeoutMs: input.heartbeatTimeoutMs ?? 60_000 }).sdn.ensureSdn.executeWithOptions(
          { summary },
          [{ zone: input.zone.id, bridge: input.zone.bridge, vnets: input.vnets }],
        ),
    );
  }
  upsertSearchAttributes([{ key: FerryStage, value: 'done' }]);
  return { actions, untranslated: input.untranslated ?? [] };
}

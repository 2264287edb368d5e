import { executeChild, workflowInfo } from '@temporalio/workflow';
import type { InventoryAssessment, MigrationSettings } from '../../src/domain/migration';
import { mainQueue } from '../queues';
import { sdnSync } from '../sdn-sync';
import type { WaveState } from './state';

/** One SDN sync for the whole wave: the zone and the VNets its VMs need, as a child workflow. */
export async function syncNetworks(
  wave: WaveState,
  assessment: InventoryAssessment,
  settings: MigrationSettings,
): Promise<void> {
  wave.setStage('networks');
  const { vnetPlan, untranslatedNetworks } = assessment;
  const sdn = await executeChild(sdnSync, {
    workflowId: `${workflowInfo().workflowId}/sdn`,
    taskQueue: mainQueue(),
    staticSummary: `wave ${wave.waveId}: SDN zone ${vnetPlan.zone.id}, ${vnetPlan.vnets.length} VNets`,
    staticDetails: `the VNets the wave's VMs need: ${
      vnetPlan.vnets
        .slice(0, 10)
        .map((v) => v.id)
        .join(', ') || 'none'
    }${vnetPlan.vnets.length > 10 ? ', …' : ''}`,
    args: [
      {
        zone: vnetPlan.zone,
        vnets: vnetPlan.vnets,
        permits: settings.limits.sdn,
        waveId: wave.waveId,
        untranslated: untranslatedNetworks,
        heartbeatTimeoutMs: settings.heartbeatTimeoutMs,
      },
    ],
  });
  wave.sdn = sdn;
  wave.actions.push(...sdn.actions);
}

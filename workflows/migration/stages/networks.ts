import { executeChild, workflowInfo } from '@temporalio/workflow';
import { missingVnetRefusals, sdnActions, type MigrateVmResult } from '../../../src/domain/migration';
import { sdnSync } from '../../sdn-sync';
import type { MigrationRun } from '../run-context';

/** The VNets this VM needs exist (the wave usually made them already; otherwise a child run makes them). */
export async function networks(run: MigrationRun): Promise<MigrateVmResult | undefined> {
  const { vnetPlan } = run.vm;
  const { settings } = run;
  const sdnState = await run.acts.read.readSdnState.executeWithOptions({ summary: 'read the SDN zones and VNets' }, []);
  const missing = missingVnetRefusals(vnetPlan, sdnState);
  if (missing.length > 0) return run.refuse(missing);
  if (sdnActions(vnetPlan, sdnState).length === 0) return undefined;
  const sdn = await executeChild(sdnSync, {
    workflowId: `${workflowInfo().workflowId}/sdn`,
    staticSummary: `${run.status.vm}: SDN zone ${vnetPlan.zone}, ${vnetPlan.vnets.length} VNets`,
    args: [
      {
        zone: vnetPlan.zone,
        vnets: vnetPlan.vnets,
        permits: settings.limits.sdn,
        waveId: run.input.waveId,
        heartbeatTimeoutMs: settings.heartbeatTimeoutMs,
      },
    ],
  });
  run.status.actions.push(...sdn.actions);
  return undefined;
}

import type { Client } from '@temporalio/client';
import type { doctor } from '../workflows/doctor';
import type { FerryConfig } from '../src/config';
import { formatVerdict, type DoctorReport } from '../src/domain/doctor';
import type { WaveStatus } from '../src/domain/migration';
import type { ProvisionPlannedStatus } from '../src/domain/provisioning';
import { runSampleMigration } from './sample-migration';
import { logSampleProvisioning, startSampleProvisioning } from './sample-provision';
import { startSampleChange } from './sample-change';
import type { ChangeStatus } from '../src/domain/change-vm';

/** How the commands the lab prints reach it: its config file, its Temporal address. */
export interface LabCommands {
  /** e.g. `FERRY_CONFIG=.state/lab/ferry.yaml npm run ferry --` */
  ferry: string;
  /** Flags for `temporal workflow …`, e.g. `--address 127.0.0.1:7233`. */
  temporalFlags: string;
}

export const DEFAULT_LAB_COMMANDS: LabCommands = { ferry: 'npm run ferry --', temporalFlags: '' };

export interface SampleResult {
  doctor: DoctorReport;
  wave?: WaveStatus;
  provisioned?: ProvisionPlannedStatus;
  /** Day 2: the change NetBox's edit of lab-web1 started, at its approval gate (or ended). */
  change?: ChangeStatus;
}

/** The lab's sample run: what a newcomer sees in the UI a minute after `npm run lab`. */
export async function runSample(
  client: Client,
  config: FerryConfig,
  log: (line: string) => void,
  commands: LabCommands = DEFAULT_LAB_COMMANDS,
): Promise<SampleResult> {
  const taskQueue = config.worker.taskQueue;
  const report = await client.workflow.execute<typeof doctor>('doctor', {
    taskQueue,
    workflowId: `doctor-lab-${Date.now()}`,
    staticSummary: 'lab sample: doctor',
  });
  log('lab: doctor');
  for (const v of report.verdicts) log(`  ${formatVerdict(v)}`);
  // The planned NetBox VMs are built while the migration wave runs up to its approval gate.
  const provisioning =
    config.provisioning && config.netbox && report.ok ? await startSampleProvisioning(client, taskQueue) : undefined;
  const wave = config.migration && report.ok ? await runSampleMigration(client, taskQueue, log, commands) : undefined;
  const provisioned = provisioning ? await provisioning.result() : undefined;
  if (provisioned) logSampleProvisioning(provisioned, log, commands, taskQueue);
  const change = provisioned ? await startSampleChange(client, config, provisioned, log, commands) : undefined;
  return { doctor: report, wave, provisioned, change };
}

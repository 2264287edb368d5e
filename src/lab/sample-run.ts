import type { Client } from '@temporalio/client';
import type { doctor } from '../../workflows/doctor';
import { formatVerdict, type DoctorReport } from '../domain/doctor';

/** The lab's sample run: what a newcomer sees in the UI a minute after `npm run lab`. */
export async function runSample(client: Client, taskQueue: string, log: (line: string) => void): Promise<{ doctor: DoctorReport }> {
  const report = await client.workflow.execute<typeof doctor>('doctor', {
    taskQueue,
    workflowId: `doctor-lab-${Date.now()}`,
    staticSummary: 'lab sample: doctor',
  });
  log('lab: doctor');
  for (const v of report.verdicts) log(`  ${formatVerdict(v)}`);
  return { doctor: report };
}

import { activityInfo } from '@temporalio/activity';
import type { ProxmoxClient } from '../src/proxmox';

/**
 * A line in the description of a VM ferry creates naming the workflow run that created it: provenance
 * in the Proxmox notes (which workflow to open in the Temporal UI), and how a retry knows a VM it finds
 * at its VMID is its own run's create whose answer was lost. The write-intent heartbeat (write-intent.ts)
 * can die with a killed worker before it reaches the server; the mark goes out with the create itself.
 */
export function runMarked(description: string | undefined): { description: string; mark: string } {
  const info = activityInfo();
  const run = info.workflowExecution;
  const mark = run ? `ferry: workflow ${run.workflowId}, run ${run.runId}` : `ferry: activity ${info.activityId}`;
  return { description: description ? `${description}\n${mark}` : mark, mark };
}

/** The VM at `vmid` carries `mark`: this run created it. */
export async function createdWithMark(
  client: ProxmoxClient,
  node: string,
  vmid: number,
  mark: string,
): Promise<boolean> {
  const description = (await client.config.get(node, vmid)).values.description;
  return typeof description === 'string' && description.split('\n').includes(mark);
}

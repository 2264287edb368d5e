/**
 * The activities that read other workflows' state through the worker's Temporal client, by name and
 * shape. activities/workflow-watch.ts implements them; workflows see only this type.
 */
import type { PreviousRun } from '../src/domain/migration';

export interface ClosedWorkflow {
  workflowId: string;
  /** How it closed: COMPLETED, FAILED, CANCELLED, TERMINATED, TIMED_OUT, … */
  status: string;
}

export interface WorkflowWatchActivities {
  /** Those of `workflowIds` whose latest run is closed (or that do not exist), with how they closed. */
  closedWorkflows(input: { workflowIds: string[] }): Promise<ClosedWorkflow[]>;
  /** The latest run of a workflow: how it stands and, if it completed, the migration outcome it returned. */
  previousRun(input: { workflowId: string }): Promise<PreviousRun>;
}

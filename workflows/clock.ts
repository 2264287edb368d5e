/**
 * Workflow time. Inside a workflow the SDK replaces `Date` with a deterministic clock that reads the
 * time of the current workflow task, so this is replay-safe; keeping it in one place makes that explicit.
 */
export function workflowNow(): number {
  return Date.now();
}

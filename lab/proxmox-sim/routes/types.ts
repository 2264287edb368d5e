import type { PermissionChecker } from '../access/permissions';
import type { Cluster, Role } from '../cluster';
import type { ReceivedUpload } from '../storage-upload/multipart';
import type { TaskContext, SimTask } from '../tasks';

/** A validated API request as route handlers see it. */
export interface SimRequest {
  cluster: Cluster;
  method: string;
  /** Path below /api2/json. */
  path: string;
  /** Path, query and body parameters, validated against the schema (booleans as '1'/'0'). */
  params: Record<string, string>;
  /** Authenticated id: `user@realm` or `user@realm!token`. */
  user: string;
  role: Role;
  /** Set by fault injection: the next task this request starts fails. */
  failTask: boolean;
  /** The caller's permissions (RPCEnvironment's check, check_any, check_vm_perm). */
  perm: PermissionChecker;
  /** A file upload pveproxy received into a temporary file (…/storage/{storage}/upload). */
  upload?: ReceivedUpload;
  /**
   * Set by a check PVE makes inside the method's worker rather than before it (access/route-checks.ts):
   * the task this request starts fails with it.
   */
  taskFailure?: string;
}

export type Handler = (req: SimRequest) => unknown;
export type RouteTable = Record<string, Handler>;

/** The exit status of a task that fault injection made fail. */
export const INJECTED_TASK_FAILURE = 'task failed (fault injected by the simulator)';

/** Starts a task for a request, honouring injected task failures (`onFailure` undoes what the request began). */
export function startTask(
  req: SimRequest,
  spec: { node: string; type: string; id: string },
  work: (ctx: TaskContext) => Promise<void>,
  onFailure?: () => void,
): SimTask {
  return req.cluster.tasks.start({ ...spec, user: req.user }, work, {
    failWith: req.taskFailure ?? (req.failTask ? INJECTED_TASK_FAILURE : undefined),
    onFailure,
  });
}

export const int = (v: string | undefined, fallback: number) => (v === undefined ? fallback : Number(v));

/** An answer with PVE's `total` result attribute beside `data` (task logs, task lists). */
export class WithTotal {
  constructor(
    readonly data: unknown,
    readonly total: number,
  ) {}
}

import { z } from 'zod';
import { digest, pveBool, pveInt, pveScalar } from './quirks';
import { isUpid } from './upid';

/**
 * Shapes of the PVE answers ferry reads. Objects are loose (PVE adds fields between versions) but every
 * field ferry uses is typed, so a changed answer fails here with a message that names the field.
 */
export const upidSchema = z.string().refine(isUpid, 'a task id (UPID:…)');
/** Writes that answer a UPID, or null when the work was done in the request. */
export const upidOrNullSchema = z.union([upidSchema, z.null()]);
export const nullSchema = z.null();

export const versionSchema = z.looseObject({
  version: z.string().regex(/^\d+\.\d+/),
  release: z.string(),
  repoid: z.string(),
});

export const ticketSchema = z.looseObject({
  ticket: z.string().min(1),
  CSRFPreventionToken: z.string().min(1),
  username: z.string(),
});

export const nodeListSchema = z.array(
  z.looseObject({ node: z.string(), status: z.enum(['online', 'offline', 'unknown']) }),
);

export const resourceSchema = z.looseObject({
  id: z.string(),
  type: z.string(),
  node: z.string().optional(),
  vmid: pveInt.optional(),
  name: z.string().optional(),
  status: z.string().optional(),
  template: pveBool.optional(),
  lock: z.string().optional(),
  tags: z.string().optional(),
});
export const resourcesSchema = z.array(resourceSchema);

export const nodeVmListSchema = z.array(
  z.looseObject({ vmid: pveInt, name: z.string().optional(), status: z.string(), lock: z.string().optional() }),
);

export const nextIdSchema = pveInt;

export const taskStatusSchema = z.looseObject({
  status: z.enum(['running', 'stopped']),
  exitstatus: z.string().optional(),
  type: z.string(),
  node: z.string(),
  upid: z.string().optional(),
});
/** `GET /nodes/{node}/tasks`: a task still running has no exit status (PVE reports it as `RUNNING`). */
export const taskListSchema = z.array(
  z.looseObject({
    upid: upidSchema,
    type: z.string(),
    id: z.string(),
    node: z.string(),
    starttime: pveInt,
    status: z.string().optional(),
  }),
);
export const taskLogSchema = z.array(z.looseObject({ n: pveInt, t: z.string() }));

/** `GET …/config`: every option as a string, plus the digest. */
export const vmConfigSchema = z
  .object({ digest })
  .catchall(z.union([z.string(), z.number()]))
  .transform(({ digest: d, ...rest }) => ({
    digest: d,
    values: Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, String(v)])) as Record<string, string>,
  }));

export const pendingSchema = z.array(
  z.looseObject({
    key: z.string(),
    value: pveScalar.optional(),
    pending: pveScalar.optional(),
    /** 1 = delete, 2 = forced delete. */
    delete: pveInt.optional(),
  }),
);

export const vmStatusSchema = z.looseObject({
  status: z.enum(['running', 'stopped']),
  qmpstatus: z.string().optional(),
  lock: z.string().optional(),
  name: z.string().optional(),
  uptime: pveInt.optional(),
});

export const storageContentSchema = z.array(
  z.looseObject({
    volid: z.string(),
    format: z.string().optional(),
    size: pveInt.optional(),
    content: z.string().optional(),
    vmid: pveInt.optional(),
  }),
);

export const aclSchema = z.array(
  z.looseObject({
    path: z.string(),
    type: z.enum(['user', 'group', 'token']),
    ugid: z.string(),
    roleid: z.string(),
    propagate: pveBool.optional(),
  }),
);

const sdnItem = {
  digest: digest.optional(),
  state: z.enum(['new', 'changed', 'deleted']).optional(),
  pending: z.record(z.string(), z.unknown()).optional(),
};
export const sdnZonesSchema = z.array(z.looseObject({ zone: z.string(), type: z.string(), ...sdnItem }));
export const sdnVnetsSchema = z.array(z.looseObject({ vnet: z.string(), zone: z.string().optional(), ...sdnItem }));
export const sdnLockTokenSchema = z.string().min(1);

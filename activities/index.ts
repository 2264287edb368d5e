import type { ActivityDeps } from './deps';
import { createDoctorActivities } from './doctor';
import { createPermitActivities } from './permits';

export type { ActivityDeps } from './deps';

/** Every activity, bound to its dependencies. Workflows see only the type. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createDoctorActivities(deps),
    ...createPermitActivities(),
  };
}

export type Activities = ReturnType<typeof createActivities>;

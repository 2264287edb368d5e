import type { ActivityDeps } from './deps';
import { createDoctorActivities } from './doctor';
import { createMigrationActivities } from './migration';
import { createPermitActivities } from './permits';
import { withFailureMapping } from './failures';

export type { ActivityDeps } from './deps';

/** Every activity, bound to its dependencies. Workflows see only the type. */
export function createActivities(deps: ActivityDeps) {
  return withFailureMapping({
    ...createDoctorActivities(deps),
    ...createPermitActivities(),
    ...createMigrationActivities(deps),
  });
}

export type Activities = ReturnType<typeof createActivities>;

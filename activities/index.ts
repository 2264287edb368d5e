import type { ActivityDeps } from './deps';
import { createChangeActivities } from './change';
import type { ChangeActivities } from './change-contract';
import { createDoctorActivities } from './doctor';
import { createDriftActivities } from './drift';
import { createMigrationActivities } from './migration';
import type { MigrationActivities } from './migration-contract';
import { createPermitActivities } from './permits';
import { createPlacementActivities } from './placement';
import { createProvisioningActivities } from './provisioning';
import { createPveVmActivities } from './pve-vm';
import type { PveVmActivities } from './pve-vm-contract';
import type { ProvisioningActivities, TeardownActivities } from './provisioning-contract';
import { createTeardownActivities } from './teardown';
import { withDowntimeHold } from './downtime-hold';
import { withFailureMapping } from './failures';
import { createWorkflowWatchActivities } from './workflow-watch';

export type { ActivityDeps } from './deps';

/**
 * Every activity, bound to its dependencies. Workflows see only the type. A VM's downtime work pauses
 * the worker's conversions while it runs (activities/downtime-hold.ts).
 */
export function createActivities(deps: ActivityDeps) {
  return withDowntimeHold(
    withFailureMapping({
      ...createDoctorActivities(deps),
      ...createPermitActivities(),
      ...createPveVmActivities(deps),
      ...createChangeActivities(deps),
      ...createDriftActivities(deps),
      ...createMigrationActivities(deps),
      ...createPlacementActivities(deps),
      ...createProvisioningActivities(deps),
      ...createTeardownActivities(deps),
      ...createWorkflowWatchActivities(),
    }),
    deps.conversionYield,
  );
}

export type Activities = ReturnType<typeof createActivities>;

// Activities are registered by name: two groups must never define the same one (a spread would
// silently keep only the last).
type Shared<A, B> = Extract<keyof A, keyof B>;
const distinctNames: [
  | Shared<PveVmActivities, MigrationActivities & ProvisioningActivities & TeardownActivities & ChangeActivities>
  | Shared<ChangeActivities, MigrationActivities & ProvisioningActivities & TeardownActivities>
  | Shared<MigrationActivities, ProvisioningActivities & TeardownActivities>
  | Shared<ProvisioningActivities, TeardownActivities>,
] extends [never]
  ? true
  : never = true;
void distinctNames;

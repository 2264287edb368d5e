// Every workflow type ferry's worker registers. Only deterministic code lives under workflows/.
//
// Each type loads its module on its first call, not here: the SDK gives every workflow run its own
// module cache, so importing them all eagerly made each run (e.g. each of 1,000 VMs at the cutover gate)
// evaluate every workflow's code, provisioning, teardown and the wave included. webpack bundles a
// synchronous require and evaluates its module when the call reaches it.
/* eslint-disable @typescript-eslint/no-require-imports */
import type { SemaphoreWorkflow, VmidAllocatorWorkflow } from '../src/domain/messages';
import type * as ChangeVm from './change-vm';
import type * as Doctor from './doctor';
import type * as DriftReport from './drift-report';
import type * as MigrateVm from './migrate-vm';
import type * as MigrationWave from './migration-wave';
import type * as NetboxVm from './netbox-vm';
import type * as PlanChange from './plan-change';
import type * as PlanMigration from './plan-migration';
import type * as ProvisionPlanned from './provision-planned';
import type * as ProvisionVm from './provision-vm';
import type * as SdnSync from './sdn-sync';
import type * as Semaphore from './semaphore';
import type * as TeardownVm from './teardown-vm';
import type * as VmidAllocator from './vmid-allocator';

export const changeVm: typeof ChangeVm.changeVm = (...args) =>
  (require('./change-vm') as typeof ChangeVm).changeVm(...args);
export const doctor: typeof Doctor.doctor = (...args) => (require('./doctor') as typeof Doctor).doctor(...args);
export const driftReport: typeof DriftReport.driftReport = (...args) =>
  (require('./drift-report') as typeof DriftReport).driftReport(...args);
export const migrateVm: typeof MigrateVm.migrateVm = (...args) =>
  (require('./migrate-vm') as typeof MigrateVm).migrateVm(...args);
export const migrationWave: typeof MigrationWave.migrationWave = (...args) =>
  (require('./migration-wave') as typeof MigrationWave).migrationWave(...args);
export const netboxVm: typeof NetboxVm.netboxVm = (...args) =>
  (require('./netbox-vm') as typeof NetboxVm).netboxVm(...args);
export const builtNetboxVms: typeof NetboxVm.builtNetboxVms = (...args) =>
  (require('./netbox-vm') as typeof NetboxVm).builtNetboxVms(...args);
export const planChange: typeof PlanChange.planChange = (...args) =>
  (require('./plan-change') as typeof PlanChange).planChange(...args);
export const planMigration: typeof PlanMigration.planMigration = (...args) =>
  (require('./plan-migration') as typeof PlanMigration).planMigration(...args);
export const provisionPlanned: typeof ProvisionPlanned.provisionPlanned = (...args) =>
  (require('./provision-planned') as typeof ProvisionPlanned).provisionPlanned(...args);
export const provisionVm: typeof ProvisionVm.provisionVm = (...args) =>
  (require('./provision-vm') as typeof ProvisionVm).provisionVm(...args);
export const sdnSync: typeof SdnSync.sdnSync = (...args) => (require('./sdn-sync') as typeof SdnSync).sdnSync(...args);
export const semaphore: typeof Semaphore.semaphore = (...args) =>
  (require('./semaphore') as typeof Semaphore).semaphore(...args);
export const teardownVm: typeof TeardownVm.teardownVm = (...args) =>
  (require('./teardown-vm') as typeof TeardownVm).teardownVm(...args);
export const vmidAllocator: typeof VmidAllocator.vmidAllocator = (...args) =>
  (require('./vmid-allocator') as typeof VmidAllocator).vmidAllocator(...args);

// Activities start these two by the signatures in src/domain/messages.ts; this fails to compile if they drift.
const startedByActivities: [SemaphoreWorkflow, VmidAllocatorWorkflow] = [semaphore, vmidAllocator];
void startedByActivities;

// Every workflow type ferry's worker registers. Only deterministic code lives under workflows/.
export { doctor } from './doctor';
export { migrateVm } from './migrate-vm';
export { migrationWave } from './migration-wave';
export { netboxVm } from './netbox-vm';
export { planMigration } from './plan-migration';
export { provisionPlanned } from './provision-planned';
export { provisionVm } from './provision-vm';
export { sdnSync } from './sdn-sync';
export { semaphore } from './semaphore';
export { teardownVm } from './teardown-vm';
export { vmidAllocator } from './vmid-allocator';

import type { SemaphoreWorkflow, VmidAllocatorWorkflow } from '../src/domain/messages';
import { semaphore } from './semaphore';
import { vmidAllocator } from './vmid-allocator';
// Activities start these two by the signatures in src/domain/messages.ts; this fails to compile if they drift.
const startedByActivities: [SemaphoreWorkflow, VmidAllocatorWorkflow] = [semaphore, vmidAllocator];
void startedByActivities;

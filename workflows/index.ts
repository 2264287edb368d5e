// Every workflow type ferry's worker registers. Only deterministic code lives under workflows/.
export { doctor } from './doctor';
export { migrateVm } from './migrate-vm';
export { migrationWave } from './migration-wave';
export { planMigration } from './plan-migration';
export { sdnSync } from './sdn-sync';
export { semaphore } from './semaphore';

import type { MigrateVmResult } from '../../../src/domain/migration';
import type { MigrationRun } from '../run-context';

/** A stage of the itinerary: it passes the run on (undefined) or ends it with its result. */
export type Stage = (run: MigrationRun) => Promise<MigrateVmResult | undefined>;

import type { ConversionFacts, ConversionPlan } from '../../../src/domain/conversion';
import { conversionFactsOf } from '../../../src/domain/migration';
import type { MigrationRun } from '../run-context';

/** What vCenter says of the VM, as conversion decisions take it. */
export function conversionFacts(run: MigrationRun): ConversionFacts {
  return conversionFactsOf(run.vm.assessment, run.vm.snapshot.vm.firmware);
}

/** The run's conversion plan: from its inspection once there was one, else from vCenter's facts. */
export function conversionPlanOf(run: MigrationRun): ConversionPlan | undefined {
  return run.status.conversion?.plan ?? run.vm.assessment.conversion;
}

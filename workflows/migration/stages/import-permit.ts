import { PERMIT_KEYS } from '../../../src/domain/permits';
import type { PermitOptions } from '../../permits';
import { permitLeaseMs } from '../../vm/proxies';
import type { MigrationRun } from '../run-context';

/** A permit of the target storage's import limit, held as long as an import may retry. */
export function importPermit(run: MigrationRun, label: string): PermitOptions {
  const { settings } = run;
  return {
    key: PERMIT_KEYS.import(settings.targetStorage),
    permits: settings.limits.importPerStorage,
    leaseMs: permitLeaseMs(settings.cutover.importTimeoutMs),
    label,
  };
}

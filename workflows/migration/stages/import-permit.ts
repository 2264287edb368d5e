import { PERMIT_KEYS } from '../../../src/domain/permits';
import type { withPermit } from '../../permits';
import { permitLeaseMs } from '../proxies';
import type { MigrationRun } from '../run-context';

/** A permit of the target storage's import limit, held as long as an import may retry. */
export function importPermit(run: MigrationRun, label: string): Parameters<typeof withPermit>[0] {
  const { settings } = run;
  return {
    key: PERMIT_KEYS.import(settings.targetStorage),
    permits: settings.limits.importPerStorage,
    leaseMs: permitLeaseMs(settings.cutover.importTimeoutMs),
    label,
  };
}

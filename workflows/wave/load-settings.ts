import type { ConversionMode } from '../../src/domain/conversion';
import { withWaveConversion, type MigrationSettings } from '../../src/domain/migration';
import { reads } from '../vm/proxies';
import type { WaveApprovals } from './approvals';
import type { WaveState } from './state';

/**
 * The settings, read once per wave (a later run has them carried over), with the wave's own conversion
 * mode; approvals that waited for them are taken.
 */
export async function loadSettings(
  wave: WaveState,
  approvals: WaveApprovals,
  conversion?: ConversionMode,
): Promise<MigrationSettings> {
  wave.settings ??= withWaveConversion(
    await reads.loadMigrationSettings.executeWithOptions({ summary: 'load the migration settings' }, []),
    conversion,
  );
  approvals.settingsLoaded();
  return wave.settings;
}

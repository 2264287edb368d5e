import type { MigrationSettings } from '../../src/domain/migration';
import { reads } from '../migration/proxies';
import type { WaveApprovals } from './approvals';
import type { WaveState } from './state';

/** The settings, read once per wave (a later run has them carried over); approvals that waited for them are taken. */
export async function loadSettings(wave: WaveState, approvals: WaveApprovals): Promise<MigrationSettings> {
  wave.settings ??= await reads.loadMigrationSettings.executeWithOptions({ summary: 'load the migration settings' }, []);
  approvals.settingsLoaded();
  return wave.settings;
}

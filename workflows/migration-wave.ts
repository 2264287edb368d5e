import type { WaveSelection } from '../activities/migration-contract';
import { ApplicationFailure } from '@temporalio/workflow';
import {
  cutoverWindowProblem,
  type CutoverDecision,
  type CutoverWindow,
  type MigrationAction,
  type PackedWaveStatus,
} from '../src/domain/migration';
import type { ConversionMode } from '../src/domain/conversion';
import type { SdnSyncResult } from './sdn-sync';
import { failureMessage } from './failures';
import { WaveApprovals } from './wave/approvals';
import { WaveCancel } from './wave/cancel';
import { discover } from './wave/discover';
import { fanOut } from './wave/fan-out';
import { loadSettings } from './wave/load-settings';
import { syncNetworks } from './wave/networks';
import { handlePlacementMoved, preflightPlacement } from './wave/placement';
import { handleReports } from './wave/reports';
import { SignalsInFlight } from './wave/signals-in-flight';
import { openWave, type WaveCarry } from './wave/state';

export interface MigrationWaveInput {
  waveId: string;
  selection: WaveSelection;
  /** VM workflows running at once (those waiting for approval count). */
  maxConcurrent?: number;
  /** Start a new run (continue-as-new) after this many VM workflows were started in one run (default: when Temporal suggests it). */
  continueAsNewAfter?: number;
  /** Approve every VM up front (recorded like any approval; the approver must be known). For labs and benchmarks. */
  autoApprove?: CutoverDecision;
  /** Approved cutovers start only inside this window (wave file `cutoverWindow`). */
  cutoverWindow?: CutoverWindow;
  /** Guest conversion for this wave (wave file `conversion`): replaces migration.conversion.mode; its overrides still apply. */
  conversion?: ConversionMode;
  /** How often the wave looks for VM workflows that closed without reporting (default 5 minutes). */
  childCheckIntervalMs?: number;
  /** State carried over continue-as-new. */
  carried?: WaveCarry;
}

/**
 * Bounded per VM: the status holds a compact row per VM (`unpackWaveStatus` gives the VMs as objects);
 * each VM's actions, timings and full detail are in its own workflow's result.
 */
export interface MigrationWaveResult {
  status: PackedWaveStatus;
  /** The wave's own actions (SDN, the VMs it refused), in the form `plan` predicts them. */
  waveActions: MigrationAction[];
  sdn: SdnSyncResult;
}

/**
 * One wave: one discovery, one SDN sync, then a `migrateVm` child per translatable VM with bounded
 * fan-out. Children outlive a continue-as-new of the wave (they report back by signal), and the global
 * limits (vMotion, imports) are held by the semaphores, not by the fan-out.
 */
export async function migrationWave(input: MigrationWaveInput): Promise<MigrationWaveResult> {
  const wave = openWave(input.waveId, input.carried);
  // Handlers are set before the first await: signals may have come with the start.
  const signals = new SignalsInFlight();
  handleReports(wave, signals);
  handlePlacementMoved(wave);
  const approvals = new WaveApprovals(wave, signals);
  const cancel = new WaveCancel(wave, signals);
  if (input.cutoverWindow && !input.carried) wave.status.cutoverWindow = checkedWindow(input.cutoverWindow);

  const settings = await loadSettings(wave, approvals, input.conversion);
  if (!input.carried) {
    approvals.checkAutoApprove(input.autoApprove, settings);
    const discovery = await discover(wave, input.selection, settings);
    try {
      // Before any VM workflow starts: what does not fit is refused here, with the numbers.
      await preflightPlacement(wave, discovery, settings);
      if (input.autoApprove) approvals.approve(input.autoApprove, 'update');
      await syncNetworks(wave, discovery.assessment, settings);
    } catch (err) {
      wave.endPending(`not started: the wave failed in ${wave.status.stage}: ${failureMessage(err)}`);
      throw err;
    }
  }
  await fanOut(wave, settings, { approvals, signals, cancel }, input);

  wave.setStage('done');
  await signals.settled();
  return wave.result();
}

function checkedWindow(window: CutoverWindow): CutoverWindow {
  const problem = cutoverWindowProblem(window);
  if (problem) throw ApplicationFailure.nonRetryable(`cutoverWindow: ${problem}`, 'InvalidInput');
  return window;
}

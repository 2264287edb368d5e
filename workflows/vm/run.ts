import { setCurrentDetails, setHandler, upsertSearchAttributes, type QueryDefinition } from '@temporalio/workflow';
import { FerryKind, FerryStage, VmId, VmName, type FerryKindValue } from '../../src/domain/search-attributes';
import { closeStage, enterStage, runDetails, type VmRunStatus } from '../../src/domain/vm-run';
import type { WaitRecord } from '../../src/domain/waits';
import { workflowNow } from '../clock';
import { failureMessage } from '../failures';

/**
 * Opens a VM workflow's status: its query answers from it and the UI lists the run under its kind, from
 * the first moment (before any await, so `ferry status` works while the run loads its settings).
 */
export function openStatus<Status>(kind: FerryKindValue, status: Status, query: QueryDefinition<Status>): Status {
  setHandler(query, () => status);
  upsertSearchAttributes([{ key: FerryKind, value: kind }]);
  return status;
}

/**
 * What every VM workflow (migrate, provision, teardown, change) is while it runs: the status its query
 * shows, stages that FerryStage and the UI's current details follow, the actions and waits it records
 * as they happen, and what it waits for now. A family extends it with what its stages share.
 *
 * Its operations are bound (arrow fields), so stages may take them apart: `const { enter, record } = run`.
 */
export class VmRun<Stage extends string, Status extends VmRunStatus<Stage>, Action> {
  /** Who the run is about, for the UI's details (a VM's name once known, else its reference). */
  private who: string;

  constructor(
    readonly status: Status,
    /** Where the run's actions are kept in its status (`actions` of a migration, `steps` of a provision). */
    private readonly actions: (status: Status) => Action[],
    who: string,
  ) {
    this.who = who;
  }

  /** The run moves to `stage`: its status, FerryStage and the UI's current details say so. */
  readonly enter = (stage: Stage): void => {
    const now = workflowNow();
    enterStage(this.status, stage, now);
    upsertSearchAttributes([{ key: FerryStage, value: stage }]);
    this.showDetails();
    this.entered(stage, now);
  };

  /** Ends the run in its final stage (done, refused, …), a mark that takes no time. */
  readonly end = (stage: Stage): void => {
    this.enter(stage);
    closeStage(this.status);
  };

  readonly record = (action: Action): void => {
    this.actions(this.status).push(action);
  };

  readonly waited = (wait: WaitRecord): void => {
    this.status.waits.push(wait);
  };

  /**
   * Waits for something outside the run (a person, a permit, a window): the status and the UI's details
   * say what for and since when while it lasts, and the wait is recorded with its length when it ends.
   */
  readonly waitFor = async <T>(what: string, wait: () => Promise<T>): Promise<T> => {
    const done = this.beginWait(what);
    try {
      return await wait();
    } finally {
      done();
    }
  };

  /** The start of a wait `waitFor` cannot wrap (it begins inside another call); the function it returns ends it. */
  readonly beginWait = (what: string): (() => void) => {
    const since = workflowNow();
    this.status.waiting = { for: what, since };
    this.showDetails();
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      if (this.status.waiting?.since === since && this.status.waiting.for === what) delete this.status.waiting;
      this.waited({ for: what, waitedMs: workflowNow() - since });
      this.showDetails();
    };
  };

  /** The VM is known by name (and VMID): the UI's list and details name it from now on. */
  readonly named = (name: string, vmid?: number): void => {
    this.who = name;
    upsertSearchAttributes([{ key: VmName, value: name }, ...(vmid !== undefined ? [{ key: VmId, value: vmid }] : [])]);
    this.showDetails();
  };

  readonly failed = (err: unknown): void => {
    this.status.error = failureMessage(err);
  };

  /** The UI's current details, from the status as it is now (the stage, a wait, messages not acted on). */
  showDetails(): void {
    setCurrentDetails(runDetails(this.who, this.status));
  }

  /** A family's hook for each stage entered (a migration tells its wave). */
  protected entered(_stage: Stage, _at: number): void {}
}

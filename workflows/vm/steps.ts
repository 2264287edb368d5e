/**
 * A VM workflow's itinerary: its steps as data, in order. A step shows its stage (FerryStage, the status,
 * the report and docs share the names), runs only when its condition holds, and may end the run with a
 * result (refused, rejected, …), after which the rest do not run.
 */
export interface Step<Run, Stage extends string, Ended> {
  /** The stage it shows; a step without one runs inside the stage before it (a check, a small write). */
  stage?: Stage;
  /** Its name in the docs and in a failure's context, where it has no stage of its own. */
  step?: string;
  /** It runs only when this holds for the run (read when the step is reached); else it is passed by. */
  when?: (run: Run) => boolean;
  run: (run: Run) => Promise<Ended | undefined | void>;
}

export function stepName(step: { stage?: string; step?: string }): string {
  return step.stage ?? step.step ?? '(unnamed step)';
}

/**
 * Runs `steps` in order, entering each step's stage first. `around` wraps each step's run (a migration
 * stops a step on cancel, and takes a cancel at a safe point after one).
 */
export async function followSteps<
  Run extends { enter(stage: Stage): void },
  Stage extends string,
  Ended,
  S extends Step<Run, Stage, Ended>,
>(
  run: Run,
  steps: readonly S[],
  around: (step: S, go: () => Promise<Ended | undefined>) => Promise<Ended | undefined> = (_step, go) => go(),
): Promise<Ended | undefined> {
  for (const step of steps) {
    if (step.when && !step.when(run)) continue;
    const ended = await around(step, async () => {
      if (step.stage) run.enter(step.stage);
      return (await step.run(run)) ?? undefined;
    });
    if (ended !== undefined) return ended;
  }
  return undefined;
}

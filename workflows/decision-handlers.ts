import { setHandler, type SignalDefinition } from '@temporalio/workflow';
import type { UpdateDefinition } from '@temporalio/common';
import type { CutoverDecision, DecisionRecord, SignedDecision } from '../src/domain/migration';
import { workflowNow } from './clock';

export interface DecisionHandlers<D extends CutoverDecision, R> {
  /** What the decision does (approve, reject, retry, …), for the record of an ignored signal. */
  kind: string;
  update: UpdateDefinition<R, [D]>;
  /** The same decision by signal (`temporal workflow signal`), which cannot be refused. */
  signal: SignalDefinition<[D]>;
  /** Why the decision cannot be taken now, or undefined when it can. */
  problem: (decision: D | undefined) => string | undefined;
  accept: (record: DecisionRecord, decision: D) => void;
  /** Signals not acted on, with the reason, so nothing is silently dropped. */
  ignored: Array<{ message: string; reason: string }>;
  /** What the update answers once the decision is taken. */
  reply: () => R;
}

/**
 * One human decision, by a validated update (refused without a trace in history) or by the
 * same-named signal (an invalid one is recorded in `ignored` instead of acted on).
 */
export function handleDecision<D extends CutoverDecision, R>(h: DecisionHandlers<D, R>): void {
  const record = (d: D, via: DecisionRecord['via']): DecisionRecord => ({
    by: d.by,
    reason: d.reason,
    at: workflowNow(),
    via,
    ...((d as SignedDecision).signed ? { signed: true as const } : {}),
  });
  setHandler(
    h.update,
    (decision) => {
      h.accept(record(decision, 'update'), decision);
      return h.reply();
    },
    {
      validator: (decision) => {
        const problem = h.problem(decision);
        if (problem) throw new Error(problem);
      },
    },
  );
  setHandler(h.signal, (decision) => {
    const problem = h.problem(decision);
    if (problem) h.ignored.push({ message: `${h.kind} by ${String(decision?.by)}`, reason: problem });
    else h.accept(record(decision, 'signal'), decision);
  });
}

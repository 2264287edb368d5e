import { setHandler, type SignalDefinition } from '@temporalio/workflow';
import { ApplicationFailure, type UpdateDefinition } from '@temporalio/common';
import type { CutoverDecision, DecisionRecord, SignedDecision } from '../src/domain/migration';
import { workflowNow } from './clock';
import type { IgnoredMessage } from '../src/domain/vm-run';

export interface DecisionHandlers<D extends CutoverDecision, R> {
  /** What the decision does (approve, reject, retry, …), for the record of an ignored one. */
  kind: string;
  update: UpdateDefinition<R, [D]>;
  /** The same decision by signal (`temporal workflow signal`), which cannot be refused. */
  signal: SignalDefinition<[D]>;
  /** Why the decision cannot be taken now, or undefined when it can. */
  problem: (decision: D | undefined) => string | undefined;
  accept: (record: DecisionRecord, decision: D) => void;
  /** Decisions not acted on (refused updates, ignored signals), with the reason: nothing silently dropped. */
  ignored: IgnoredMessage[];
  /** Called after a decision was added to `ignored` (the UI's current details show it). */
  onIgnored?: () => void;
  /** What the update answers once the decision is taken. */
  reply: () => R;
}

/**
 * One human decision, by update or by the same-named signal (`temporal workflow signal`). One that cannot
 * be taken now is recorded in `ignored` with the reason, never acted on; an update is then answered with
 * that reason as its failure. Updates are checked in the handler, not a validator, on purpose: a
 * validator's refusal leaves no trace in the history, and a person who asks where an approval went must
 * find it (in the history, `status`, the report and the UI's details).
 */
export function handleDecision<D extends CutoverDecision, R>(h: DecisionHandlers<D, R>): void {
  const record = (d: D, via: DecisionRecord['via']): DecisionRecord => ({
    by: d.by,
    reason: d.reason,
    at: workflowNow(),
    via,
    ...((d as SignedDecision).signed ? { signed: true as const } : {}),
  });
  const refused = (decision: D | undefined, via: DecisionRecord['via']): string | undefined => {
    const problem = h.problem(decision);
    if (!problem) return undefined;
    h.ignored.push({ message: `${h.kind} by ${String(decision?.by)} (${via})`, reason: problem });
    h.onIgnored?.();
    return problem;
  };
  setHandler(h.update, (decision) => {
    const problem = refused(decision, 'update');
    if (problem) throw ApplicationFailure.nonRetryable(problem, 'DecisionRefused');
    h.accept(record(decision, 'update'), decision);
    return h.reply();
  });
  setHandler(h.signal, (decision) => {
    if (!refused(decision, 'signal')) h.accept(record(decision, 'signal'), decision);
  });
}

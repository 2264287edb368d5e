import { setCurrentDetails, upsertSearchAttributes } from '@temporalio/workflow';
import { FerryStage } from '../../src/domain/search-attributes';

/** Moves a workflow's status to a stage: its status query, the UI's FerryStage and its current details show the same. */
export type EnterStage<S extends string> = (stage: S) => void;

export function stageSetter<S extends string>(status: { stage: S }): EnterStage<S> {
  return (stage) => {
    status.stage = stage;
    upsertSearchAttributes([{ key: FerryStage, value: stage }]);
    setCurrentDetails(`stage: ${stage}`);
  };
}

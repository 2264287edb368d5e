import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/** What a workflow does: `provision`, `teardown`, `migrate`, `wave`, `doctor`, `semaphore`, … */
export const FerryKind = defineSearchAttributeKey('FerryKind', SearchAttributeType.KEYWORD);
/** Every FerryKind value ferry's workflows set (`ferry list --kind` takes one of these). */
export const FERRY_KINDS = [
  'migrate',
  'wave',
  'plan',
  'sdn-sync',
  'provision',
  'provision-planned',
  'change',
  'teardown',
  'vmid-allocator',
  'semaphore',
  'doctor',
  'lookup',
  'drift',
] as const;
export type FerryKindValue = (typeof FERRY_KINDS)[number];

/** The stage a workflow is in, kept current so the UI and `temporal workflow list` can filter on it. */
export const FerryStage = defineSearchAttributeKey('FerryStage', SearchAttributeType.KEYWORD);
export const VmName = defineSearchAttributeKey('VmName', SearchAttributeType.KEYWORD);
export const VmId = defineSearchAttributeKey('VmId', SearchAttributeType.INT);
export const WaveId = defineSearchAttributeKey('WaveId', SearchAttributeType.KEYWORD);

/** Every search attribute ferry sets; a Temporal namespace must have them registered. */
export const FERRY_SEARCH_ATTRIBUTES = [FerryKind, FerryStage, VmName, VmId, WaveId] as const;

/** `Name=Type` as `temporal server start-dev --search-attribute` and `temporal operator search-attribute create` take it. */
export function searchAttributeCliSpecs(): string[] {
  const cliType: Record<string, string> = {
    [SearchAttributeType.KEYWORD]: 'Keyword',
    [SearchAttributeType.INT]: 'Int',
    [SearchAttributeType.TEXT]: 'Text',
    [SearchAttributeType.BOOL]: 'Bool',
    [SearchAttributeType.DOUBLE]: 'Double',
    [SearchAttributeType.DATETIME]: 'Datetime',
    [SearchAttributeType.KEYWORD_LIST]: 'KeywordList',
  };
  return FERRY_SEARCH_ATTRIBUTES.map((key) => `${key.name}=${cliType[key.type]}`);
}

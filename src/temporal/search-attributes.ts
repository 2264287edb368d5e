import { temporal } from '@temporalio/proto';
import { FERRY_SEARCH_ATTRIBUTES } from '../domain/search-attributes';

const INDEXED = temporal.api.enums.v1.IndexedValueType;
const BY_TYPE: Record<string, temporal.api.enums.v1.IndexedValueType> = {
  TEXT: INDEXED.INDEXED_VALUE_TYPE_TEXT,
  KEYWORD: INDEXED.INDEXED_VALUE_TYPE_KEYWORD,
  INT: INDEXED.INDEXED_VALUE_TYPE_INT,
  DOUBLE: INDEXED.INDEXED_VALUE_TYPE_DOUBLE,
  BOOL: INDEXED.INDEXED_VALUE_TYPE_BOOL,
  DATETIME: INDEXED.INDEXED_VALUE_TYPE_DATETIME,
  KEYWORD_LIST: INDEXED.INDEXED_VALUE_TYPE_KEYWORD_LIST,
};

/** `{ name: IndexedValueType }` as the operator service's AddSearchAttributes takes it. */
export function searchAttributeIndexedTypes(): Record<string, temporal.api.enums.v1.IndexedValueType> {
  return Object.fromEntries(FERRY_SEARCH_ATTRIBUTES.map((key) => [key.name, BY_TYPE[key.type]!]));
}

/**
 * Checks an answer against a method's `returns` schema, as PVE's JSONSchema reads it: types (booleans as
 * 0/1, as PVE's JSON has them), required and optional properties, `additionalProperties: 0`, array items,
 * enums and minimums. PVE itself does not validate its answers; this is for the simulator's tests, so
 * that every answer has the shape the official schema promises. Returns one message per mismatch, each
 * with the path of the value (`[0].memory.total`). With `perl`, booleans must be the integers 0/1 PVE's
 * Perl code writes (JSON true/false are refused): what its JSON encoder emits for `? 1 : 0`.
 */
export interface ReturnsSchema {
  type?: string | string[];
  optional?: number | string;
  properties?: Record<string, ReturnsSchema>;
  additionalProperties?: number | boolean | ReturnsSchema;
  items?: ReturnsSchema;
  enum?: unknown[];
  minimum?: number | string;
  [other: string]: unknown;
}

const isOptional = (s: ReturnsSchema) => s.optional === 1 || s.optional === '1';

export interface ReturnsOptions {
  /** Booleans only as 0/1 (PVE's Perl answers), not JSON true/false. */
  perl?: boolean;
}

function typeError(type: string, value: unknown, options: ReturnsOptions): string | undefined {
  switch (type) {
    case 'null':
      return value === null ? undefined : 'is not null';
    case 'string':
      return typeof value === 'string' ? undefined : `is ${JSON.stringify(value)}, not a string`;
    case 'integer':
      return Number.isInteger(value) ? undefined : `is ${JSON.stringify(value)}, not an integer`;
    case 'number':
      return typeof value === 'number' ? undefined : `is ${JSON.stringify(value)}, not a number`;
    case 'boolean':
      return value === 0 || value === 1 || (typeof value === 'boolean' && !options.perl)
        ? undefined
        : `is ${JSON.stringify(value)}, not a boolean (0/1)`;
    case 'array':
      return Array.isArray(value) ? undefined : 'is not an array';
    case 'object':
      return value !== null && typeof value === 'object' && !Array.isArray(value) ? undefined : 'is not an object';
    default:
      return undefined; // 'any' and types PVE does not check
  }
}

export function checkReturns(
  schema: ReturnsSchema | undefined,
  value: unknown,
  at = '',
  options: ReturnsOptions = {},
): string[] {
  if (!schema) return [];
  // A method whose answer is optional may answer null (`returns => { type => 'string', optional => 1 }`).
  if (!at && value === null && isOptional(schema)) return [];
  const where = at || '(answer)';
  const types = schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.length > 0 && types.every((t) => typeError(t, value, options) !== undefined)) {
    return [`${where} ${typeError(types[0]!, value, options)}`];
  }
  const errors: string[] = [];
  if (schema.enum && !schema.enum.includes(value))
    errors.push(`${where} is ${JSON.stringify(value)}, not one of ${schema.enum.join(', ')}`);
  if (schema.minimum !== undefined && typeof value === 'number' && value < Number(schema.minimum))
    errors.push(`${where} is below ${schema.minimum}`);
  if (Array.isArray(value) && schema.items)
    value.forEach((item, i) => errors.push(...checkReturns(schema.items, item, `${at}[${i}]`, options)));
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && schema.properties) {
    const record = value as Record<string, unknown>;
    for (const [key, property] of Object.entries(schema.properties)) {
      const path = at ? `${at}.${key}` : key;
      if (record[key] === undefined) {
        if (!isOptional(property)) errors.push(`${path} is missing`);
      } else errors.push(...checkReturns(property, record[key], path, options));
    }
    if (schema.additionalProperties === 0 || schema.additionalProperties === false) {
      for (const key of Object.keys(record))
        if (!(key in schema.properties)) errors.push(`${at ? `${at}.` : ''}${key} is not in the schema`);
    }
  }
  return errors;
}

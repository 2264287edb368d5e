import { splitPropertyString } from '../../../src/proxmox/property-string';
import { checkNamedFormat, NAMED_PROPERTY_FORMATS } from './formats';
import { perlPatternToRegExp } from './perl-pattern';
import type { MethodSchema, ParamSchema } from './subset';

/**
 * Request parameter checking as PVE's JSONSchema does it, for one method of the official schema: names
 * (indexed keys such as `scsi[n]` folded, with the ranges qemu-server allows), types, enums, patterns,
 * lengths, ranges, named formats and property strings. Errors are keyed by parameter, with PVE's wording.
 */
export type RawValue = string | number | boolean | RawValue[];

/** Index ranges of folded keys (the schema's `[n]` says only "n"; qemu-server's limits). */
const INDEX_MAX: Record<string, number> = {
  ide: 3,
  scsi: 30,
  virtio: 15,
  sata: 5,
  unused: 255,
  net: 31,
  serial: 3,
  parallel: 2,
  numa: 7,
  hostpci: 15,
  usb: 13,
  virtiofs: 9,
  ipconfig: 31,
};

const patterns = new Map<string, RegExp>();
function pattern(text: string): RegExp {
  let compiled = patterns.get(text);
  if (!compiled) patterns.set(text, (compiled = perlPatternToRegExp(text)));
  return compiled;
}

const isOptional = (s: ParamSchema) => s.optional === 1 || s.optional === '1';

/** The schema for a parameter name, resolving `scsi7` to `scsi[n]` within the allowed range. */
export function schemaFor(properties: Record<string, ParamSchema>, name: string): ParamSchema | undefined {
  if (properties[name]) return properties[name];
  const m = /^([a-z]+)(\d+)$/.exec(name);
  if (!m) return undefined;
  const folded = properties[`${m[1]}[n]`];
  if (!folded) return undefined;
  const max = INDEX_MAX[m[1]!];
  const index = Number(m[2]);
  if (max !== undefined && index > max) return undefined;
  if (m[2]!.length > 1 && m[2]!.startsWith('0')) return undefined;
  return folded;
}

/** Checks one value; returns PVE's message or undefined. Normalises booleans to '1'/'0' via `normalised`. */
export function checkValue(schema: ParamSchema, raw: RawValue, name: string): { error?: string; value: string } {
  const type = schema.type ?? 'string';
  let value: string;
  // An `array` parameter (a JSON array, or a form key given once or more): its items as a JSON array.
  if (type === 'array') return { value: JSON.stringify((Array.isArray(raw) ? raw : [raw]).map(String)) };
  if (Array.isArray(raw)) return { error: `type check ('${type}') failed - got an array`, value: '' };
  if (typeof raw === 'boolean') {
    if (type !== 'boolean') return { error: `type check ('${type}') failed - got '${raw ? 1 : 0}'`, value: '' };
    value = raw ? '1' : '0';
  } else value = String(raw);

  switch (type) {
    case 'boolean':
      if (value !== '1' && value !== '0') return { error: `type check ('boolean') failed - got '${value}'`, value };
      return { value };
    case 'integer':
      if (!/^-?\d+$/.test(value)) return { error: `type check ('integer') failed - got '${value}'`, value };
      break;
    case 'number':
      if (!/^-?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/.test(value))
        return { error: `type check ('number') failed - got '${value}'`, value };
      break;
    case 'string':
      break;
    default:
      // object parameters are not used by the simulated endpoints; accept them as given.
      return { value };
  }

  if (schema.enum && !schema.enum.includes(value)) {
    return { error: `value '${value}' does not have a value in the enumeration '${schema.enum.join(', ')}'`, value };
  }
  if (type === 'integer' || type === 'number') {
    const n = Number(value);
    if (schema.minimum !== undefined && n < Number(schema.minimum))
      return { error: `value must have a minimum value of ${schema.minimum}`, value };
    if (schema.maximum !== undefined && n > Number(schema.maximum))
      return { error: `value must have a maximum value of ${schema.maximum}`, value };
  }
  if (type === 'string') {
    if (schema.maxLength !== undefined && value.length > schema.maxLength)
      return { error: `value may only be ${schema.maxLength} characters long`, value };
    if (schema.minLength !== undefined && value.length < schema.minLength)
      return { error: `value must be at least ${schema.minLength} characters long`, value };
    if (schema.pattern && !pattern(schema.pattern).test(value))
      return { error: 'value does not match the regex pattern', value };
  }
  const format =
    typeof schema.format === 'string' ? (NAMED_PROPERTY_FORMATS[schema.format] ?? schema.format) : schema.format;
  if (typeof format === 'string') {
    const error = checkNamedFormat(format, value);
    if (error) return { error: `invalid format - ${error}`, value };
  } else if (format) {
    const errors = checkPropertyString(format, value, name);
    if (errors.length > 0) return { error: `invalid format - format error\n${errors.join('\n')}`, value };
  }
  return { value };
}

/** pve-common's parse_boolean: 1/on/yes/true and 0/off/no/false, any case; anything else is not a boolean. */
export function parseBoolean(value: string): '1' | '0' | undefined {
  if (/^(1|on|yes|true)$/i.test(value)) return '1';
  if (/^(0|off|no|false)$/i.test(value)) return '0';
  return undefined;
}

/** Checks a property string (`k=v,k=v`) against its format; messages are prefixed `param.key: `. */
export function checkPropertyString(format: Record<string, ParamSchema>, text: string, name: string): string[] {
  const errors: string[] = [];
  const seen = new Map<string, string>();
  const defaultKey = Object.entries(format).find(([, s]) => s.default_key)?.[0];
  for (const part of splitPropertyString(text)) {
    let key = part.key;
    let value = part.value;
    if (key === undefined) {
      if (!defaultKey) {
        errors.push(`${name}: value without key, but schema does not define a default key`);
        continue;
      }
      if (seen.has(defaultKey)) {
        errors.push(`${name}.${defaultKey}: duplicate key in comma-separated list property: ${defaultKey}`);
        continue;
      }
      key = defaultKey;
    }
    const entry = format[key];
    if (!entry) {
      errors.push(
        `${name}.${key}: property is not defined in schema and the schema does not allow additional properties`,
      );
      continue;
    }
    if (entry.alias) {
      // `virtio=BC:24:…` means model=virtio, macaddr=BC:24:… (keyAlias); plain aliases rename the key.
      if (entry.keyAlias) {
        if (seen.has(entry.keyAlias))
          errors.push(`${name}.${entry.keyAlias}: duplicate key in comma-separated list property: ${entry.keyAlias}`);
        seen.set(entry.keyAlias, key);
      }
      key = entry.alias;
    }
    if (seen.has(key)) {
      errors.push(`${name}.${key}: duplicate key in comma-separated list property: ${key}`);
      continue;
    }
    const target = format[key];
    if (!target) continue;
    // Inside property strings PVE reads booleans with parse_boolean (on/yes/true…); top-level ones must be 1/0.
    if (target.type === 'boolean') value = parseBoolean(value) ?? value;
    const checked = checkValue(target, value, `${name}.${key}`);
    if (checked.error) errors.push(`${name}.${key}: ${checked.error}`);
    value = checked.value;
    seen.set(key, value);
  }
  for (const [key, entry] of Object.entries(format)) {
    // A default documents what PVE assumes when the key is optional; it does not make a required key optional.
    if (!entry.alias && !isOptional(entry) && !seen.has(key)) {
      errors.push(`${name}.${key}: property is missing and it is not optional`);
    }
  }
  return errors;
}

export interface Validated {
  /** Parameters by name, as strings (booleans as '1'/'0'). */
  params: Record<string, string>;
  /** PVE's per-parameter messages; empty when the request is valid. */
  errors: Record<string, string>;
}

/**
 * A `oneOf` property (a SectionConfig option whose schema depends on the section's type): the variant
 * whose `instance-types` holds the value of its `type-property` (e.g. a fabric's `protocol`).
 */
function resolveOneOf(schema: ParamSchema, input: Record<string, RawValue>): ParamSchema {
  const variants = schema.oneOf as ParamSchema[] | undefined;
  const typeProperty = schema['type-property'] as string | undefined;
  if (!variants || !typeProperty) return schema;
  const type = String(input[typeProperty] ?? '');
  const variant = variants.find((v) => (v['instance-types'] as string[] | undefined)?.includes(type));
  return variant ?? { ...schema, oneOf: undefined, optional: 1 };
}

/** Validates all parameters of a request (path, query and body merged) against one method's schema. */
export function validateParams(method: MethodSchema, input: Record<string, RawValue>): Validated {
  const properties = Object.fromEntries(
    Object.entries(method.parameters?.properties ?? {}).map(([k, s]) => [k, resolveOneOf(s, input)]),
  );
  const params: Record<string, string> = {};
  const errors: Record<string, string> = {};
  for (const [name, raw] of Object.entries(input)) {
    const schema = schemaFor(properties, name);
    if (!schema) {
      errors[name] = 'property is not defined in schema and the schema does not allow additional properties';
      continue;
    }
    const checked = checkValue(schema, raw, name);
    if (checked.error) errors[name] = checked.error;
    else params[name] = checked.value;
  }
  for (const [name, schema] of Object.entries(properties)) {
    if (name.endsWith('[n]') || isOptional(schema)) continue;
    if (!(name in input)) errors[name] = 'property is missing and it is not optional';
  }
  return { params, errors };
}

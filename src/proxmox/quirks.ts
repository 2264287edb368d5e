import { z } from 'zod';

/**
 * zod building blocks for PVE's loosely typed answers: booleans come as 0/1 (sometimes "0"/"1"),
 * integers and numbers sometimes as strings. Anything else is rejected.
 */
export const pveBool = z
  .union([z.literal(0), z.literal(1), z.literal('0'), z.literal('1'), z.boolean()])
  .transform((v) => v === 1 || v === '1' || v === true);

/** The other way: a boolean as PVE takes it on the wire (1/0); undefined stays undefined (not sent). */
export function flag(value: boolean): '1' | '0';
export function flag(value: boolean | undefined): '1' | '0' | undefined;
export function flag(value: boolean | undefined): '1' | '0' | undefined {
  return value === undefined ? undefined : value ? '1' : '0';
}

export const pveInt = z
  .union([z.number().int(), z.string().regex(/^-?\d+$/, 'an integer (as number or string)')])
  .transform((v) => Number(v));

export const pveNumber = z
  .union([z.number(), z.string().regex(/^-?\d+(\.\d+)?([eE][-+]?\d+)?$/, 'a number (as number or string)')])
  .transform((v) => Number(v));

/** Config values: PVE sends numbers for integer/boolean options and strings otherwise; ferry reads all as strings. */
export const pveScalar = z.union([z.string(), z.number()]).transform((v) => String(v));

export const digest = z.string().regex(/^[0-9a-f]{40,64}$/, 'a SHA digest (hex)');

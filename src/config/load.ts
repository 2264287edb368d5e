import { readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml, YAMLParseError } from 'yaml';
import type { z } from 'zod';
import { ENV_BINDINGS, parseEnvValue, type EnvBinding } from './env';
import { ferryConfigSchema, type FerryConfig } from './schema';

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid ferry configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

/** Where a config path came from, so errors point at the right file or variable. */
function describeOrigin(pathKey: string, fromEnv: Map<string, string>, source: string): string {
  for (const [key, env] of fromEnv) {
    if (pathKey === key || pathKey.startsWith(`${key}.`)) return `environment ${env}`;
  }
  return source;
}

function setPath(target: Record<string, unknown>, keys: readonly string[], value: unknown): void {
  let node = target;
  for (const key of keys.slice(0, -1)) {
    const next = node[key];
    if (next === undefined || next === null) node[key] = {};
    else if (typeof next !== 'object' || Array.isArray(next)) return; // schema validation will report the shape
    node = node[key] as Record<string, unknown>;
  }
  node[keys[keys.length - 1]!] = value;
}

function getPath(target: unknown, keys: readonly string[]): unknown {
  let node = target;
  for (const key of keys) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

function formatIssue(issue: z.core.$ZodIssue, fromEnv: Map<string, string>, source: string): string {
  const where = issue.path.map(String).join('.') || '(top level)';
  let message = issue.message;
  if (issue.code === 'unrecognized_keys') message = `unknown key(s) ${issue.keys.map((k) => `"${k}"`).join(', ')}`;
  return `${where} (${describeOrigin(where, fromEnv, source)}): ${message}`;
}

/**
 * Validates a parsed config document after applying environment overrides. Every problem is listed,
 * each with the key and where the value came from.
 */
export function parseConfig(document: unknown, env: Env = process.env, source = 'ferry.yaml'): FerryConfig {
  const problems: string[] = [];
  if (document !== null && document !== undefined && (typeof document !== 'object' || Array.isArray(document))) {
    throw new ConfigError([`${source}: the top level must be a mapping of sections (temporal, worker, proxmox, …)`]);
  }
  const raw: Record<string, unknown> = structuredClone((document ?? {}) as Record<string, unknown>);
  const fromEnv = new Map<string, string>();

  for (const binding of ENV_BINDINGS) {
    if (binding.secret && getPath(raw, binding.path) !== undefined) {
      problems.push(
        `${binding.path.join('.')} (${source}): secrets are not read from files; set ${binding.env} in the worker's environment`,
      );
    }
  }
  for (const binding of ENV_BINDINGS) applyEnv(binding, env, raw, fromEnv, problems);

  const result = ferryConfigSchema.safeParse(raw);
  if (!result.success) problems.push(...result.error.issues.map((i) => formatIssue(i, fromEnv, source)));
  if (problems.length > 0) throw new ConfigError(problems);
  return result.data!;
}

function applyEnv(
  binding: EnvBinding,
  env: Env,
  raw: Record<string, unknown>,
  fromEnv: Map<string, string>,
  problems: string[],
): void {
  const value = env[binding.env];
  if (value === undefined || value === '') return;
  const parsed = parseEnvValue(binding, value);
  if ('error' in parsed) {
    problems.push(`${binding.path.join('.')} (environment ${binding.env}): ${parsed.error}`);
    return;
  }
  setPath(raw, binding.path, parsed.value);
  fromEnv.set(binding.path.join('.'), binding.env);
}

/**
 * Loads ferry's configuration: `--config`/`FERRY_CONFIG`, else `./ferry.yaml` when present, else defaults;
 * then environment overrides.
 */
export function loadConfig(file?: string, env: Env = process.env): FerryConfig {
  const explicit = file ?? env.FERRY_CONFIG;
  const candidate = explicit ?? 'ferry.yaml';
  if (!existsSync(candidate)) {
    if (explicit) throw new ConfigError([`${explicit}: no such file`]);
    return parseConfig({}, env, 'defaults');
  }
  const text = readFileSync(candidate, 'utf8');
  let document: unknown;
  try {
    document = parseYaml(text, { prettyErrors: true });
  } catch (err) {
    const detail = err instanceof YAMLParseError ? err.message : String(err);
    throw new ConfigError([`${candidate}: not valid YAML: ${detail}`]);
  }
  return parseConfig(document, env, path.relative(process.cwd(), path.resolve(candidate)) || candidate);
}

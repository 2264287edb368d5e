import { accessSync, constants, readFileSync, existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml, YAMLParseError } from 'yaml';
import type { z } from 'zod';
import { ENV_BINDINGS, parseEnvValue, type EnvBinding } from './env';
import { netboxSection } from './endpoints';
import { missingValueMessage } from './missing';
import { ferryConfigSchema, type FerryConfig } from './schema';
import { ConfigError } from './config-error';

export { ConfigError };

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

function formatIssue(
  issue: z.core.$ZodIssue,
  raw: Record<string, unknown>,
  fromEnv: Map<string, string>,
  createdBy: Map<string, string>,
  source: string,
): string {
  const where = issue.path.map(String).join('.') || '(top level)';
  const absent = issue.path.length > 0 && getPath(raw, issue.path.map(String)) === undefined;
  // A custom issue on an absent key is a missing value only where a variable could set it (not a defaulted list).
  const bound = ENV_BINDINGS.some((b) => b.path.join('.') === where);
  if (absent && (issue.code === 'invalid_type' || (issue.code === 'custom' && bound))) {
    return missingValueMessage(where, issue.code === 'custom' ? issue.message : undefined, source, createdBy);
  }
  let message = issue.message;
  if (issue.code === 'unrecognized_keys') message = `unknown key(s) ${issue.keys.map((k) => `"${k}"`).join(', ')}`;
  return `${where} (${describeOrigin(where, fromEnv, source)}): ${message}`;
}

/** Sections a command may leave out of validation; temporal, worker and limits are always checked. */
export const OPTIONAL_SECTIONS = [
  'proxmox',
  'vsphere',
  'netbox',
  'dns',
  'migration',
  'knownHosts',
  'provisioning',
] as const;
export type OptionalSection = (typeof OPTIONAL_SECTIONS)[number];

/** What a command checks: only these optional sections (and their secrets); default every one. */
export interface ConfigScope {
  sections: readonly OptionalSection[];
}

/** Names that go into workflow ids, read even when their section is not otherwise checked. */
export interface WorkflowNames {
  netbox?: string;
}

/** Values ferry filled in itself, so messages can say so (a default Temporal address that does not answer). */
export interface ConfigDefaults {
  /** Neither TEMPORAL_ADDRESS nor temporal.address was set: the address is 127.0.0.1:7233. */
  temporalAddress: boolean;
  /**
   * Where the Temporal address came from, for messages: the environment (TEMPORAL_ADDRESS), the
   * configuration file (temporal.address, in the file named), or ferry's default.
   */
  temporalAddressFrom: TemporalAddressSource;
}

export type TemporalAddressSource = { kind: 'environment' } | { kind: 'file'; file: string } | { kind: 'default' };

/**
 * Validates a parsed config document after applying environment overrides. Every problem is listed,
 * each with the key and where the value came from. With a scope, sections outside it are left out
 * (absent from the result), so a command needs neither their values nor their secrets.
 */
export function parseConfig(
  document: unknown,
  env: Env = process.env,
  source = 'ferry.yaml',
  scope?: ConfigScope,
): FerryConfig {
  return parseScoped(document, env, source, scope).config;
}

function parseScoped(
  document: unknown,
  env: Env,
  source: string,
  scope: ConfigScope | undefined,
): { config: FerryConfig; names: WorkflowNames; defaults: ConfigDefaults } {
  const problems: string[] = [];
  if (document !== null && document !== undefined && (typeof document !== 'object' || Array.isArray(document))) {
    throw new ConfigError([`${source}: the top level must be a mapping of sections (temporal, worker, proxmox, …)`]);
  }
  const raw: Record<string, unknown> = structuredClone((document ?? {}) as Record<string, unknown>);
  const inScope = (section: string) =>
    !scope ||
    !(OPTIONAL_SECTIONS as readonly string[]).includes(section) ||
    scope.sections.includes(section as OptionalSection);
  const bindings = ENV_BINDINGS.filter((b) => inScope(b.path[0]!));
  const fromEnv = new Map<string, string>();
  const createdBy = new Map<string, string>();

  // Every section, in scope or not: a secret written into the file is refused by every command, not
  // only by the ones (the worker) that read its section.
  for (const binding of ENV_BINDINGS) {
    if (binding.secret && getPath(raw, binding.path) !== undefined) {
      problems.push(
        `${binding.path.join('.')} (${source}): secrets are not read from files; set ${binding.env} in the worker's environment`,
      );
    }
  }
  for (const binding of bindings) applyEnv(binding, env, raw, fromEnv, createdBy, problems);

  // Out of scope, netbox.name alone is checked here; in scope, with the rest of its section below.
  const names = inScope('netbox') ? undefined : workflowNames(raw, source, problems);
  const defaults = addressDefaults(raw, fromEnv, source);
  for (const section of OPTIONAL_SECTIONS) if (!inScope(section)) delete raw[section];

  problems.push(...unreadableCaFiles(raw, fromEnv, source));
  const result = ferryConfigSchema.safeParse(raw);
  if (!result.success)
    problems.push(...result.error.issues.map((i) => formatIssue(i, raw, fromEnv, createdBy, source)));
  if (problems.length > 0) throw new ConfigError(problems);
  const config = result.data!;
  return {
    config,
    names: names ?? (config.netbox?.name !== undefined ? { netbox: config.netbox.name } : {}),
    defaults,
  };
}

function addressDefaults(raw: Record<string, unknown>, fromEnv: Map<string, string>, source: string): ConfigDefaults {
  const unset = getPath(raw, ['temporal', 'address']) === undefined;
  const temporalAddressFrom: TemporalAddressSource = unset
    ? { kind: 'default' }
    : fromEnv.has('temporal.address')
      ? { kind: 'environment' }
      : { kind: 'file', file: source };
  return { temporalAddress: unset, temporalAddressFrom };
}

/** Sections whose `caFile` names a PEM file the worker reads at start (before any request). */
const CA_FILE_SECTIONS = ['proxmox', 'vsphere', 'netbox'] as const;

/**
 * A `caFile` that names no readable file is refused with the configuration: else the worker starts and
 * every request to that endpoint fails (or the endpoint is trusted by a CA no one meant).
 */
function unreadableCaFiles(raw: Record<string, unknown>, fromEnv: Map<string, string>, source: string): string[] {
  const problems: string[] = [];
  for (const section of CA_FILE_SECTIONS) {
    const file = getPath(raw, [section, 'caFile']);
    if (typeof file !== 'string' || file === '') continue;
    const key = `${section}.caFile`;
    let reason: string | undefined;
    try {
      if (statSync(file).isDirectory()) reason = 'is a folder, not a PEM file';
      else accessSync(file, constants.R_OK);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      reason =
        code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'not readable by this user' : (err as Error).message;
    }
    if (reason)
      problems.push(
        `${key} (${describeOrigin(key, fromEnv, source)}): ${file}: ${reason}; name the PEM file of the CA that signed the server's certificate`,
      );
  }
  return problems;
}

/** netbox.name is part of provisioning workflow ids: every command that starts or finds one needs it. */
function workflowNames(raw: Record<string, unknown>, source: string, problems: string[]): WorkflowNames {
  const name = netboxSection.shape.name.safeParse(getPath(raw, ['netbox', 'name']));
  if (!name.success) {
    problems.push(...name.error.issues.map((i) => `netbox.name (${source}): ${i.message}`));
    return {};
  }
  return name.data === undefined ? {} : { netbox: name.data };
}

function applyEnv(
  binding: EnvBinding,
  env: Env,
  raw: Record<string, unknown>,
  fromEnv: Map<string, string>,
  createdBy: Map<string, string>,
  problems: string[],
): void {
  const value = env[binding.env];
  if (value === undefined || value === '') return;
  const parsed = parseEnvValue(binding, value);
  if ('error' in parsed) {
    problems.push(`${binding.path.join('.')} (environment ${binding.env}): ${parsed.error}`);
    return;
  }
  const section = binding.path[0]!;
  if (raw[section] === undefined && !createdBy.has(section)) createdBy.set(section, binding.env);
  setPath(raw, binding.path, parsed.value);
  fromEnv.set(binding.path.join('.'), binding.env);
}

/**
 * Loads ferry's configuration: `--config`/`FERRY_CONFIG`, else `./ferry.yaml` when present, else defaults;
 * then environment overrides.
 */
export function loadConfig(file?: string, env: Env = process.env, scope?: ConfigScope): FerryConfig {
  return loadScopedConfig(file, env, scope).config;
}

/** loadConfig for a command that uses only some sections, with the names workflow ids need. */
export function loadScopedConfig(
  file: string | undefined,
  env: Env = process.env,
  scope?: ConfigScope,
): { config: FerryConfig; names: WorkflowNames; defaults: ConfigDefaults } {
  const explicit = file ?? env.FERRY_CONFIG;
  const candidate = explicit ?? 'ferry.yaml';
  if (!existsSync(candidate)) {
    if (explicit) throw new ConfigError([`${explicit}: no such file`]);
    return parseScoped({}, env, 'defaults', scope);
  }
  const text = readFileSync(candidate, 'utf8');
  let document: unknown;
  try {
    document = parseYaml(text, { prettyErrors: true });
  } catch (err) {
    const detail = err instanceof YAMLParseError ? err.message : String(err);
    throw new ConfigError([`${candidate}: not valid YAML: ${detail}`]);
  }
  return parseScoped(document, env, path.relative(process.cwd(), path.resolve(candidate)) || candidate, scope);
}

import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import { ENV_BINDINGS } from '../src/config';

/**
 * Writes the lab's configuration (its ports, `netbox.name: lab-<stamp>`, …) where `ferry` commands run
 * by hand can use it through FERRY_CONFIG. Secrets stay out: they live in the lab's worker only, and
 * the client commands need none.
 */
export function writeLabConfigFile(stateDir: string, document: Record<string, unknown>): string {
  const copy = structuredClone(document);
  for (const binding of ENV_BINDINGS.filter((b) => b.secret)) deletePath(copy, binding.path);
  mkdirSync(stateDir, { recursive: true });
  const file = path.join(stateDir, 'ferry.yaml');
  writeFileSync(
    file,
    `# Written by \`ferry lab\` for this run; no secrets (the lab's worker holds them).\n${stringify(copy)}`,
  );
  return file;
}

function deletePath(target: Record<string, unknown>, keys: readonly string[]): void {
  let node: unknown = target;
  for (const key of keys.slice(0, -1)) {
    if (node === null || typeof node !== 'object') return;
    node = (node as Record<string, unknown>)[key];
  }
  if (node !== null && typeof node === 'object') delete (node as Record<string, unknown>)[keys[keys.length - 1]!];
}

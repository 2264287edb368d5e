import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Script } from 'node:vm';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { REPO_ROOT, WORKFLOWS_PATH } from '../src/paths';

const DOMAIN_DIR = path.join(REPO_ROOT, 'src', 'domain');
const SHARED_LIBRARIES = path.join(REPO_ROOT, 'worker', 'shared-libraries.ts');

/**
 * Modules evaluated once per worker and shared by every workflow (the SDK's `preloadModules`) instead of
 * once per workflow: the SDK gives each workflow its own module cache, so otherwise every cached workflow
 * holds its own copy of src/domain, zod, luxon and @noble (most of its memory, and CPU each time an
 * evicted workflow is rebuilt). Safe because src/domain is pure and these libraries keep no per-run
 * state. The SDK freezes what shared modules export, which zod schemas do not survive (they bind their
 * methods on first use), so files defining schemas, the barrels (index.ts) that re-export them, and every
 * file importing one of those at run time (directly or through others: a shared file would load it into
 * the frozen, shared context) stay per workflow; test/unit/workflow-bundle-sharing.test.ts checks it.
 */
export function sharedWorkflowModules(domainDir = DOMAIN_DIR): string[] {
  const files = domainFiles(domainDir);
  const perWorkflow = new Set(files.filter((f) => path.basename(f) === 'index.ts' || definesZodSchemas(f)));
  const imports = new Map(files.map((f) => [f, runtimeImports(f, files)]));
  for (let grew = true; grew;) {
    grew = false;
    for (const f of files) {
      if (perWorkflow.has(f) || !imports.get(f)!.some((t) => perWorkflow.has(t))) continue;
      perWorkflow.add(f);
      grew = true;
    }
  }
  return [SHARED_LIBRARIES, ...files.filter((f) => !perWorkflow.has(f))];
}

/** The src/domain files a file imports at run time (relative imports, not `import type`). */
export function runtimeImports(file: string, files = domainFiles()): string[] {
  const source = readFileSync(file, 'utf8');
  const found: string[] = [];
  for (const m of source.matchAll(/^(?:import|export)\s+(?!type\b)[^;]*?from\s+'(\.[^']+)'/gms)) {
    const target = path.resolve(path.dirname(file), m[1]!);
    found.push(files.find((f) => f === `${target}.ts` || f === path.join(target, 'index.ts')) ?? target);
  }
  return found;
}

export function definesZodSchemas(file: string): boolean {
  return /from 'zod'/.test(readFileSync(file, 'utf8'));
}

/** Every source file under src/domain (tests and declarations aside). */
export function domainFiles(dir = DOMAIN_DIR): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !/\.(test|d)\.ts$/.test(e.name))
    .map((e) => path.join(e.parentPath, e.name))
    .sort();
}

/**
 * Bundles the workflows into a file a worker loads (`workflowBundle: { codePath }`), so the worker
 * skips webpack at its start (time, and memory it would keep). Returns the bundle's size in bytes.
 * `shareModules: false` builds it as before sharing (for benchmarks comparing the two).
 */
export async function writeWorkflowBundle(
  file: string,
  workflowsPath = WORKFLOWS_PATH,
  shareModules = true,
): Promise<number> {
  const preloadModules = shareModules ? sharedWorkflowModules() : [];
  const { code } = await bundleWorkflowCode({ workflowsPath, preloadModules, logger: new DefaultLogger('WARN') });
  const ascii = asciiOnly(withoutSourcesContent(code));
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, ascii);
  return ascii.length;
}

const INLINE_SOURCE_MAP = '\n//# sourceMappingURL=data:application/json;charset=utf-8;base64,';

/**
 * The bundle with its inline source map stripped of the sources' text (`sourcesContent`: 1.9 of the
 * bundle's 5.7 MB, once base64-encoded more). Every workflow thread parses the map for stack traces and
 * keeps it; file names, lines and columns stay, so stack traces read the same. The text served only the
 * enhanced stack trace query's `showStackTraceSources` (off in ferry) and debuggers.
 */
export function withoutSourcesContent(code: string): string {
  const at = code.lastIndexOf(INLINE_SOURCE_MAP);
  if (at < 0) return code;
  const map = JSON.parse(
    Buffer.from(code.slice(at + INLINE_SOURCE_MAP.length).trim(), 'base64').toString('utf8'),
  ) as Record<string, unknown>;
  if (!('sourcesContent' in map)) return code;
  delete map.sourcesContent;
  return code.slice(0, at) + INLINE_SOURCE_MAP + Buffer.from(JSON.stringify(map)).toString('base64');
}

/**
 * The bundle with every non-ASCII character written as a \uXXXX escape. V8 keeps a string that holds
 * one character above Latin-1 in two bytes per character: the ~200 such characters (dashes and arrows in
 * messages, maths in libraries' comments) made the worker hold the 5.7 MB bundle file as 11 MiB, twice
 * (the main thread reads it, the workflow thread compiles it). The escape means the same character in
 * strings, templates, regular expressions, identifiers and comments; a bundle that no longer parses
 * (an astral character in an identifier) is kept as it was. Source map columns after an escape on the
 * same line shift by a few characters.
 */
export function asciiOnly(code: string): string {
  if (!/[\u0080-\uffff]/.test(code)) return code;
  const escaped = code.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  try {
    new Script(escaped);
    return escaped;
  } catch {
    return code;
  }
}

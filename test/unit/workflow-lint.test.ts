import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.join(__dirname, '..', '..');
const ESLINT = path.join(ROOT, 'node_modules', 'eslint', 'bin', 'eslint.js');

interface Probe {
  name: string;
  dir: 'src' | 'activities' | 'workflows' | 'worker' | 'lab' | 'cli';
  code: string;
}

const refused = (statement: string) =>
  `${statement}\nexport const probe = String(${statement.match(/\{ (\w+) \}/)![1]});\n`;

const PROBES: Probe[] = [
  { name: 'fs', dir: 'workflows', code: refused("import { readFileSync } from 'fs';") },
  { name: 'node:fs', dir: 'workflows', code: refused("import { readFileSync } from 'node:fs';") },
  { name: 'undici', dir: 'workflows', code: refused("import { request } from 'undici';") },
  { name: 'src/config', dir: 'workflows', code: refused("import { loadConfig } from '../src/config';") },
  { name: 'activities value', dir: 'workflows', code: refused("import { createActivities } from '../activities';") },
  {
    name: 'allowed',
    dir: 'workflows',
    code: [
      "import { sleep } from '@temporalio/workflow';",
      "import type { Activities } from '../activities';",
      "import { TASK_QUEUES } from '../src/domain/task-queues';",
      'export async function probe(a: Activities | undefined): Promise<string> {',
      '  await sleep(1);',
      '  return `${TASK_QUEUES.main}${String(a)}`;',
      '}',
    ].join('\n'),
  },
  {
    name: 'localeCompare',
    dir: 'workflows',
    code: "export const probe = ['b', 'a'].sort((x, y) => x.localeCompare(y));\n",
  },
  // The stack: src → activities → workflows → worker → lab → cli → bin, each importing only downward.
  { name: 'src imports activities', dir: 'src', code: refused("import { createActivities } from '../activities';") },
  {
    name: 'activities import a workflow type',
    dir: 'activities',
    code: "import type { semaphore } from '../workflows/semaphore';\nexport type Probe = typeof semaphore;\n",
  },
  { name: 'worker imports lab', dir: 'worker', code: refused("import { startLab } from '../lab/lab';") },
  { name: 'lab imports cli', dir: 'lab', code: refused("import { main } from '../cli/main';") },
  {
    name: 'downward imports',
    dir: 'cli',
    code: [
      "import { startLab } from '../lab/lab';",
      "import { createWorkers } from '../worker/create-workers';",
      "import { approveCutoverUpdate } from '../src/domain/messages';",
      'export const probe = [startLab, createWorkers, approveCutoverUpdate.name];',
    ].join('\n'),
  },
  // Message names are spelled once, in src/domain/messages.ts.
  {
    name: 'signal by name',
    dir: 'cli',
    code: "import type { WorkflowHandle } from '@temporalio/client';\nexport const probe = (h: WorkflowHandle) => h.signal('approveCutover', { by: 'a', reason: 'b' });\n",
  },
  {
    name: 'definition outside messages',
    dir: 'workflows',
    code: "import { defineQuery } from '@temporalio/workflow';\nexport const probe = defineQuery<string>('mine');\n",
  },
  {
    name: 'floating promise',
    dir: 'src',
    code: 'async function work(): Promise<void> {}\nexport function probe(): void {\n  work();\n}\n',
  },
];

/**
 * Writes each probe to a real file (the type-aware rules need files in the project) and lints them in
 * one ESLint run, exactly as `npm run lint` does.
 */
async function lintProbes(): Promise<Map<string, string[]>> {
  const files = PROBES.map((p) => ({
    ...p,
    file: path.join(ROOT, p.dir, `__lint_probe_${randomUUID().slice(0, 8)}.ts`),
  }));
  for (const p of files) writeFileSync(p.file, p.code);
  try {
    const stdout = await new Promise<string>((resolve, reject) =>
      execFile(
        process.execPath,
        [ESLINT, '--format', 'json', ...files.map((p) => p.file)],
        { cwd: ROOT },
        (error, out, stderr) =>
          out ? resolve(out) : reject(new Error(`eslint failed: ${error?.message ?? ''} ${stderr}`)),
      ),
    );
    const results = JSON.parse(stdout) as Array<{
      filePath: string;
      messages: Array<{ ruleId: string; message: string }>;
    }>;
    return new Map(
      files.map((p) => [
        p.name,
        results.find((r) => r.filePath === p.file)!.messages.map((m) => `${m.ruleId}: ${m.message}`),
      ]),
    );
  } finally {
    for (const p of files) rmSync(p.file, { force: true });
  }
}

describe('lint rules that keep workflow code deterministic and the stack in order', () => {
  let messages: Map<string, string[]>;
  beforeAll(async () => {
    messages = await lintProbes();
  }, 60_000);

  it.each([
    ['fs', 'Node built-ins'],
    ['node:fs', 'Node built-ins'],
    ['undici', 'call an activity'],
    ['src/config', 'only src/domain'],
    ['activities value', 'as types only'],
  ])('refuses an import of %s in workflows/', (probe, reason) => {
    expect(messages.get(probe)!.some((m) => m.startsWith('no-restricted-imports') && m.includes(reason))).toBe(true);
  });

  it('allows the workflow API, the domain rules and type-only activity imports', () => {
    expect(messages.get('allowed')).toEqual([]);
  });

  it('refuses locale-dependent string ordering in workflows/', () => {
    expect(
      messages
        .get('localeCompare')!
        .some((m) => m.startsWith('no-restricted-properties') && m.includes('compareCodeUnits')),
    ).toBe(true);
  });

  it.each([
    ['src imports activities', 'src/ may not import activities/'],
    ['activities import a workflow type', 'activities/ may not import workflows/'],
    ['worker imports lab', 'worker/ may not import lab/'],
    ['lab imports cli', 'lab/ may not import cli/'],
  ])('keeps the stack in order: %s is refused', (probe, reason) => {
    expect(messages.get(probe)!.some((m) => m.startsWith('ferry/stack-order') && m.includes(reason))).toBe(true);
  });

  it('allows imports down the stack', () => {
    expect(messages.get('downward imports')).toEqual([]);
  });

  it('refuses message names spelled as strings and definitions outside src/domain/messages.ts', () => {
    expect(
      messages
        .get('signal by name')!
        .some((m) => m.startsWith('no-restricted-syntax') && m.includes('not its name as a string')),
    ).toBe(true);
    expect(
      messages
        .get('definition outside messages')!
        .some((m) => m.startsWith('no-restricted-syntax') && m.includes('src/domain/messages.ts')),
    ).toBe(true);
  });

  it('reports floating promises anywhere', () => {
    expect(messages.get('floating promise')!.some((m) => m.startsWith('@typescript-eslint/no-floating-promises'))).toBe(
      true,
    );
  });
});

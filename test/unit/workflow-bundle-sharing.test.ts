import { readFileSync } from 'node:fs';
import path from 'node:path';
import { definesZodSchemas, runtimeImports, sharedWorkflowModules } from '../../worker/workflow-bundle';
import { workflowBundlePath } from '../helpers/temporal';
import { REPO_ROOT } from '../../src/paths';

const rel = (file: string) => path.relative(REPO_ROOT, file);

describe('modules shared by every workflow run', () => {
  const shared = sharedWorkflowModules();

  it('shares src/domain and the libraries, but not files defining zod schemas or the barrels re-exporting them', () => {
    const names = shared.map(rel);
    expect(names).toEqual(
      expect.arrayContaining([
        'worker/shared-libraries.ts',
        'src/domain/messages.ts',
        'src/domain/migration/cutover-window.ts',
        'src/domain/approvals/ssh-signature.ts',
      ]),
    );
    expect(names).not.toContain('src/domain/provisioning/spec.ts');
    // A file without a schema of its own that imports one (plan-record.ts → spec.ts) stays per workflow too.
    expect(names).not.toContain('src/domain/change/plan-record.ts');
    expect(names).not.toContain('src/domain/status/wave-summary.ts');
    expect(names.filter((n) => n.endsWith('/index.ts'))).toEqual([]);
    expect(shared.length).toBeGreaterThan(40);
  });

  it('no shared file imports one that is not shared (the SDK would freeze it with them)', () => {
    const sharedSet = new Set(shared);
    const drags = shared
      .filter((f) => f.startsWith(path.join(REPO_ROOT, 'src', 'domain')))
      .flatMap((f) =>
        runtimeImports(f)
          .filter((t) => !sharedSet.has(t) && (definesZodSchemas(t) || path.basename(t) === 'index.ts'))
          .map((t) => `${rel(f)} → ${rel(t)}`),
      );
    expect(drags).toEqual([]);
  });

  it('the bundle preloads them and loads each workflow type only when it runs', () => {
    const code = readFileSync(workflowBundlePath(), 'utf8');
    const preload = /exports\.preloadModules = function preloadModules\(\) \{([^}]*)\}/.exec(code)?.[1] ?? '';
    expect(preload).toContain('"./src/domain/messages.ts"');
    expect(preload).toContain('"./worker/shared-libraries.ts"');
    // workflows/index.ts requires a type's module inside its function, never at the module's top level.
    expect(code).toMatch(
      /const migrateVm = \(\.\.\.args\)=>\(__webpack_require__\([^)]*"\.\/workflows\/migrate-vm\.ts"\)/,
    );
  });
});

import path from 'node:path';

/** The clone's root (this file is src/paths.ts, or dist/src/paths.js once compiled by `npm run build`). */
export const REPO_ROOT = rootAbove(path.resolve(__dirname, '..'));
/** Git-ignored runtime state: lab databases, simulator folders, logs. */
export const STATE_DIR = process.env.FERRY_STATE_DIR ?? path.join(REPO_ROOT, '.state');
export const WORKFLOWS_PATH = path.join(REPO_ROOT, 'workflows', 'index.ts');

function rootAbove(parent: string): string {
  return path.basename(parent) === 'dist' && !__filename.endsWith('.ts') ? path.dirname(parent) : parent;
}

import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { WORKFLOWS_PATH } from '../src/paths';

/**
 * Bundles the workflows into a file a worker loads (`workflowBundle: { codePath }`), so the worker
 * skips webpack at its start (time, and memory it would keep). Returns the bundle's size in bytes.
 */
export async function writeWorkflowBundle(file: string, workflowsPath = WORKFLOWS_PATH): Promise<number> {
  const { code } = await bundleWorkflowCode({ workflowsPath, logger: new DefaultLogger('WARN') });
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, code);
  return code.length;
}

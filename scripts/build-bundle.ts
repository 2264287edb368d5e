/** Prebuilds the workflow bundle (dist/workflow-bundle.js); a worker that finds it skips bundling at start. */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { PREBUILT_BUNDLE } from '../worker/create-workers';
import { WORKFLOWS_PATH } from '../src/paths';

async function main(): Promise<void> {
  const { code } = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH });
  mkdirSync(path.dirname(PREBUILT_BUNDLE), { recursive: true });
  writeFileSync(PREBUILT_BUNDLE, code);
  console.log(`wrote ${PREBUILT_BUNDLE} (${code.length} bytes)`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});

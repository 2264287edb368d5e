import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { startDevServer, type DevServer } from '../../lab/temporal-dev-server';
import { REPO_ROOT } from '../../src/paths';

/**
 * One real Temporal dev server for the whole run (ferry's search attributes registered), and the
 * workflow bundle built once for every test file.
 */
export default async function globalSetup(): Promise<void> {
  const stateDir = path.join(REPO_ROOT, '.state', 'test');
  mkdirSync(stateDir, { recursive: true });

  const [server, bundle] = await Promise.all([
    startDevServer({ logFile: path.join(stateDir, 'temporal.log') }),
    bundleWorkflowCode({
      workflowsPath: path.join(REPO_ROOT, 'test', 'workflow-bundle', 'index.ts'),
      logger: new DefaultLogger('WARN'),
    }),
  ]);
  const bundlePath = path.join(stateDir, 'workflow-bundle.js');
  writeFileSync(bundlePath, bundle.code);

  process.env.FERRY_TEST_TEMPORAL_ADDRESS = server.address;
  process.env.FERRY_TEST_WORKFLOW_BUNDLE = bundlePath;
  (globalThis as { __ferryDevServer?: DevServer }).__ferryDevServer = server;
}

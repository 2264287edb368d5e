import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { writeWorkflowBundle } from '../../worker/workflow-bundle';
import { startDevServer, type DevServer } from '../../lab/temporal-dev-server';
import { REPO_ROOT } from '../../src/paths';

/**
 * One real Temporal dev server for the whole run (ferry's search attributes registered), and the
 * workflow bundle built once for every test file.
 */
export default async function globalSetup(): Promise<void> {
  const stateDir = path.join(REPO_ROOT, '.state', 'test');
  mkdirSync(stateDir, { recursive: true });

  const bundlePath = path.join(stateDir, 'workflow-bundle.js');
  const [server] = await Promise.all([
    startDevServer({ logFile: path.join(stateDir, 'temporal.log') }),
    writeWorkflowBundle(bundlePath, path.join(REPO_ROOT, 'test', 'workflow-bundle', 'index.ts')),
  ]);

  process.env.FERRY_TEST_TEMPORAL_ADDRESS = server.address;
  process.env.FERRY_TEST_WORKFLOW_BUNDLE = bundlePath;
  (globalThis as { __ferryDevServer?: DevServer }).__ferryDevServer = server;
}

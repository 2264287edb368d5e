/**
 * Records the histories the replay test replays: `npm run record-histories [name…]`.
 * Starts its own dev server, runs each scenario of test/histories/scenarios.ts and writes
 * test/histories/<name>.json with historyToJSON.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { startDevServer } from '../lab/temporal-dev-server';
import { REPO_ROOT } from '../src/paths';
import { SCENARIOS } from '../test/histories/scenarios';

async function main(names: string[]): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN'), shutdownSignals: [] });
  const selected = names.length ? SCENARIOS.filter((s) => names.includes(s.name)) : SCENARIOS;
  if (selected.length === 0) throw new Error(`no scenario named ${names.join(', ')}`);
  const server = await startDevServer();
  const bundle = await bundleWorkflowCode({
    workflowsPath: path.join(REPO_ROOT, 'test/workflow-bundle/index.ts'),
    logger: new DefaultLogger('WARN'),
  });
  const bundlePath = path.join(REPO_ROOT, '.state', 'record-bundle.js');
  writeFileSync(bundlePath, bundle.code);
  process.env.FERRY_TEST_WORKFLOW_BUNDLE = bundlePath;
  process.env.FERRY_TEST_TEMPORAL_ADDRESS = server.address; // the test helpers the scenarios use
  const clientConnection = await Connection.connect({ address: server.address });
  const connection = await NativeConnection.connect({ address: server.address });
  const client = new Client({ connection: clientConnection });
  try {
    for (const scenario of selected) {
      const made = await scenario.run({ client, connection, address: server.address });
      const histories = typeof made === 'string' ? { [scenario.name]: made } : made;
      for (const [name, workflowId] of Object.entries(histories)) {
        const history = await client.workflow.getHandle(workflowId).fetchHistory();
        const file = path.join(REPO_ROOT, 'test', 'histories', `${name}.json`);
        // The workflow id goes with the history: replay needs it (child ids and the like derive from it).
        writeFileSync(
          file,
          `${JSON.stringify({ workflowId, history: JSON.parse(historyToJSON(history)) }, null, 1)}\n`,
        );
        console.log(`recorded ${name}: ${history.events?.length ?? 0} events → ${path.relative(REPO_ROOT, file)}`);
      }
    }
  } finally {
    await clientConnection.close();
    await connection.close();
    await server.stop();
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});

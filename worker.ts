/**
 * ferry's worker: validates the configuration, connects to Temporal and serves the task queues
 * `ferry`, `ferry-vmotion`, `ferry-import` and `ferry-sdn` until SIGINT/SIGTERM, letting in-flight
 * activities finish within `worker.shutdownGraceTime`.
 *
 *   node --import tsx worker.ts [--config ferry.yaml | -c ferry.yaml]    (or: npm run worker)
 *   node dist/worker.js [--config ferry.yaml]                          (compiled: npm run build; production)
 */
import { writeFileSync } from 'node:fs';
import { DefaultLogger, Runtime, type LogLevel } from '@temporalio/worker';
import { ConfigError, loadScopedConfig } from './src/config';
import { TemporalUnreachable } from './src/temporal/connection';
import { connectWorker } from './src/temporal/worker-connection';
import { parseWorkerArgs } from './worker/args';
import { createDependencies } from './worker/dependencies';
import { createWorkers, runWorkers } from './worker/create-workers';
import { startNetboxWebhookReceiver, type NetboxWebhookReceiver } from './src/webhook/receiver';

export async function main(argv: string[] = process.argv.slice(2)): Promise<void> {
  const { config, defaults } = loadScopedConfig(parseWorkerArgs(argv).config);
  Runtime.install({
    logger: new DefaultLogger(logLevel(process.env.FERRY_LOG_LEVEL)),
    shutdownSignals: ['SIGINT', 'SIGTERM'],
  });
  const connection = await connectWorker(config.temporal, { from: defaults.temporalAddressFrom });
  let receiver: NetboxWebhookReceiver | undefined;
  try {
    const workers = await createWorkers({ config, connection, deps: await createDependencies(config) });
    // NetBox's webhook receiver, in this process when asked (else `ferry webhook` runs it).
    if (config.netbox?.webhook?.inWorker) {
      receiver = await startNetboxWebhookReceiver(config);
      console.log(`ferry worker: NetBox webhook receiver on ${receiver.url}`);
    }
    console.log(
      `ferry worker: ${config.temporal.address}${defaults.temporalAddress ? ' (the default address; set TEMPORAL_ADDRESS or temporal.address)' : ''} namespace ${
        config.temporal.namespace
      }, queues ${workers.map((w) => w.options.taskQueue).join(', ')}`,
    );
    // The container's health check looks for this file.
    if (process.env.FERRY_READY_FILE) writeFileSync(process.env.FERRY_READY_FILE, new Date().toISOString());
    await runWorkers(workers);
  } finally {
    await receiver?.close();
    await connection.close();
  }
}

const LOG_LEVELS: readonly LogLevel[] = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'];

/** FERRY_LOG_LEVEL (TRACE, DEBUG, INFO, WARN, ERROR; default INFO). */
function logLevel(value: string | undefined): LogLevel {
  if (value === undefined || value === '') return 'INFO';
  const level = value.toUpperCase() as LogLevel;
  if (!LOG_LEVELS.includes(level))
    throw new ConfigError([`FERRY_LOG_LEVEL: expected one of ${LOG_LEVELS.join(', ')}, got "${value}"`]);
  return level;
}

if (require.main === module) {
  main().catch((err: unknown) => {
    // Known refusals are one line each; anything else keeps its stack, for a bug report.
    console.error(
      err instanceof ConfigError
        ? err.message
        : err instanceof TemporalUnreachable
          ? `ferry worker: ${err.message}`
          : err,
    );
    // A configuration or command-line problem exits 2, like the CLI's usage errors.
    process.exit(err instanceof ConfigError ? 2 : 1);
  });
}

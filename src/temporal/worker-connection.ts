import { NativeConnection } from '@temporalio/worker';
import type { FerryConfig } from '../config';
import { explained, temporalTls, type AddressOrigin } from './connection';

/**
 * The worker's connection. Its own module: @temporalio/worker (the native core, webpack) takes longer to
 * load than the whole Temporal client, and the CLI's connection (./connection) must not pay for it.
 */
export async function connectWorker(
  config: FerryConfig['temporal'],
  origin: AddressOrigin = {},
): Promise<NativeConnection> {
  const tls = temporalTls(config);
  let connection: NativeConnection | undefined;
  try {
    connection = await NativeConnection.connect({ address: config.address, tls, apiKey: config.apiKey });
    // The connect takes any gRPC server; a worker polling one that is not Temporal would wait silently forever.
    await connection.workflowService.getSystemInfo({});
    return connection;
  } catch (err) {
    await connection?.close().catch(() => undefined);
    throw explained(err, config.address, origin);
  }
}

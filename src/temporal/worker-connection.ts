import { NativeConnection } from '@temporalio/worker';
import type { FerryConfig } from '../config';
import {
  isTransportFailure,
  temporalTls,
  TemporalUnreachable,
  transportReason,
  unreachableMessage,
  type AddressOrigin,
} from './connection';

/**
 * The worker's connection. Its own module: @temporalio/worker (the native core, webpack) takes longer to
 * load than the whole Temporal client, and the CLI's connection (./connection) must not pay for it.
 */
export async function connectWorker(
  config: FerryConfig['temporal'],
  origin: AddressOrigin = {},
): Promise<NativeConnection> {
  const tls = temporalTls(config);
  try {
    return await NativeConnection.connect({ address: config.address, tls, apiKey: config.apiKey });
  } catch (err) {
    throw isTransportFailure(err)
      ? new TemporalUnreachable(unreachableMessage(config.address, transportReason(err), origin), { cause: err })
      : err;
  }
}

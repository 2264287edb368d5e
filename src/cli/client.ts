import type { Client } from '@temporalio/client';
import { loadConfig, type FerryConfig } from '../config';
import { connectClient } from '../temporal/connection';

export interface GlobalOptions {
  config?: string;
}

/** Runs `fn` with a Temporal client made from the CLI's configuration, closing it afterwards. */
export async function withClient<T>(
  options: GlobalOptions,
  fn: (client: Client, config: FerryConfig) => Promise<T>,
): Promise<T> {
  const config = loadConfig(options.config);
  const client = await connectClient(config.temporal);
  try {
    return await fn(client, config);
  } finally {
    await client.connection.close();
  }
}

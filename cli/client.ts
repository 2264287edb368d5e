import type { Client } from '@temporalio/client';
import { loadScopedConfig, type FerryConfig, type OptionalSection, type WorkflowNames } from '../src/config';
import { connectClient } from '../src/temporal/connection';

export interface GlobalOptions {
  config?: string;
}

/**
 * Runs `fn` with a Temporal client made from the CLI's configuration, closing it afterwards. Only
 * temporal, worker and limits are checked (plus `sections`): the endpoints' secrets stay with the
 * worker, so an approver needs none of them.
 */
export async function withClient<T>(
  options: GlobalOptions,
  fn: (client: Client, config: FerryConfig, names: WorkflowNames) => Promise<T>,
  sections: readonly OptionalSection[] = [],
): Promise<T> {
  const { config, names, defaults } = loadScopedConfig(options.config, process.env, { sections });
  const client = await connectClient(config.temporal, { defaultAddress: defaults.temporalAddress });
  try {
    return await fn(client, config, names);
  } finally {
    await client.connection.close();
  }
}

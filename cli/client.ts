import type { Client } from '@temporalio/client';
import { loadScopedConfig, type FerryConfig, type OptionalSection, type WorkflowNames } from '../src/config';
import { connectClient, explained } from '../src/temporal/connection';

export interface GlobalOptions {
  config?: string;
}

/**
 * Runs `fn` with a Temporal client made from the CLI's configuration, closing it afterwards. Only
 * temporal, worker and limits are checked (plus `sections`): the endpoints' secrets stay with the
 * worker, so an approver needs none of them. A failure that is the connection's (nothing, or not
 * Temporal, answers at the address) names the address, where it came from and what to correct.
 */
export async function withClient<T>(
  options: GlobalOptions,
  fn: (client: Client, config: FerryConfig, names: WorkflowNames) => Promise<T>,
  sections: readonly OptionalSection[] = [],
): Promise<T> {
  const { config, names, defaults } = loadScopedConfig(options.config, process.env, { sections });
  const origin = { from: defaults.temporalAddressFrom };
  const client = await connectClient(config.temporal, origin);
  try {
    return await fn(client, config, names);
  } catch (err) {
    // A call that failed because no Temporal frontend answers there says the address and what to correct.
    throw explained(err, config.temporal.address, origin);
  } finally {
    await client.connection.close();
  }
}

import { InvalidArgumentError, type Command } from 'commander';
import type { GlobalOptions } from '../client';

export function registerWebhook(program: Command): void {
  program
    .command('webhook')
    .description(
      "receive NetBox's signed webhook (set up by `ferry netbox setup`) and signal-with-start each edited VM's changeVm; runs until stopped",
    )
    .option('--listen <host:port>', 'where to listen (default: netbox.webhook.listen, 127.0.0.1:8787)', listenOption)
    .action(async (flags: { listen?: { host: string; port: number } }, command: Command) => {
      // Loaded when the command runs, so that `ferry --help` and the other commands do not pay for it.
      const { loadScopedConfig } = require('../../src/config') as typeof import('../../src/config');
      const { startNetboxWebhookReceiver } =
        require('../../src/webhook/receiver') as typeof import('../../src/webhook/receiver');
      const { config, defaults } = loadScopedConfig(command.optsWithGlobals<GlobalOptions>().config, process.env, {
        sections: ['netbox'],
      });
      const receiver = await startNetboxWebhookReceiver(config, flags.listen ? { listen: flags.listen } : {});
      const temporal = `${config.temporal.address}${defaults.temporalAddress ? ' (the default address)' : ''}`;
      console.log(
        `ferry webhook: listening on ${receiver.url}; signals changeVm on task queue ${config.worker.taskQueue} at Temporal ${temporal}, namespace ${config.temporal.namespace}`,
      );
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      await receiver.close();
      console.log('ferry webhook: stopped');
    });
}

function listenOption(value: string): { host: string; port: number } {
  const { parseListenAddress } =
    require('../../src/config/netbox-webhook') as typeof import('../../src/config/netbox-webhook');
  const address = parseListenAddress(value);
  if (!address)
    throw new InvalidArgumentError(`expected host:port, e.g. 127.0.0.1:8787 or [::1]:8787, got "${value}".`);
  return address;
}

import type { Command } from 'commander';
import type { GlobalOptions } from '../client';
import { UsageError } from '../errors';

export function registerNetbox(program: Command): void {
  const netbox = program.command('netbox').description('NetBox, the source of truth ferry provisions from');
  netbox
    .command('setup')
    .description("create ferry's custom fields on NetBox virtual machines (idempotent: existing ones are kept)")
    .option('--json', 'print the result as JSON')
    .action(async (options: { json?: boolean }, command: Command) => {
      // Loaded when the command runs, so that `ferry --help` and the other commands do not pay for it.
      const { loadConfig } = require('../../src/config') as typeof import('../../src/config');
      const { NetboxClient } = require('../../src/netbox/client') as typeof import('../../src/netbox/client');
      const { FERRY_CUSTOM_FIELDS } =
        require('../../src/netbox/custom-fields') as typeof import('../../src/netbox/custom-fields');
      const config = loadConfig(command.optsWithGlobals<GlobalOptions>().config, process.env, { sections: ['netbox'] });
      if (!config.netbox)
        throw new UsageError('NetBox is not configured: set netbox.url in ferry.yaml (or NETBOX_URL) and NETBOX_TOKEN');
      const client = NetboxClient.fromConfig(config.netbox);
      try {
        const results = await client.ensureCustomFields();
        if (options.json) {
          console.log(JSON.stringify(results, null, 2));
          return;
        }
        for (const { name, outcome } of results) {
          const field = FERRY_CUSTOM_FIELDS.find((f) => f.name === name)!;
          console.log(`${outcome.padEnd(9)} ${name.padEnd(14)} ${field.type.padEnd(7)} ${field.label}`);
        }
      } finally {
        await client.close();
      }
    });
}

import type { Command } from 'commander';
import type { GlobalOptions } from '../client';
import { UsageError } from '../errors';

export function registerNetbox(program: Command): void {
  const netbox = program.command('netbox').description('NetBox, the source of truth ferry provisions from');
  netbox
    .command('setup')
    .description(
      "create ferry's custom fields on NetBox virtual machines and, with netbox.webhook set, the webhook and event rule that report edits to ferry's receiver (idempotent: what is right is kept, what differs is updated)",
    )
    .option('--json', 'print the result as JSON')
    .action(async (options: { json?: boolean }, command: Command) => {
      // Loaded when the command runs, so that `ferry --help` and the other commands do not pay for it.
      const { loadConfig, webhookSecret } = require('../../src/config') as typeof import('../../src/config');
      const { NetboxClient } = require('../../src/netbox/client') as typeof import('../../src/netbox/client');
      const { FERRY_CUSTOM_FIELDS } =
        require('../../src/netbox/custom-fields') as typeof import('../../src/netbox/custom-fields');
      const { ensureNetboxWebhook } =
        require('../../src/netbox/webhook-setup') as typeof import('../../src/netbox/webhook-setup');
      const config = loadConfig(command.optsWithGlobals<GlobalOptions>().config, process.env, { sections: ['netbox'] });
      if (!config.netbox)
        throw new UsageError('NetBox is not configured: set netbox.url in ferry.yaml (or NETBOX_URL) and NETBOX_TOKEN');
      const webhook = config.netbox.webhook;
      // Checked before anything is written: the webhook cannot be made without it.
      if (webhook) webhookSecret(webhook, '`ferry netbox setup`');
      const client = NetboxClient.fromConfig(config.netbox);
      try {
        const fields = await client.ensureCustomFields();
        const hooks = webhook ? await ensureNetboxWebhook(client, webhook) : [];
        if (options.json) {
          const rows = [...fields.map((f) => ({ kind: 'custom-field' as const, ...f })), ...hooks];
          console.log(JSON.stringify(rows, null, 2));
          return;
        }
        for (const { name, outcome } of fields) {
          const field = FERRY_CUSTOM_FIELDS.find((f) => f.name === name)!;
          console.log(`${outcome.padEnd(9)} ${name.padEnd(14)} ${field.type.padEnd(7)} ${field.label}`);
        }
        if (!webhook) {
          console.log(
            'skipped   webhook        netbox.webhook is not set: NetBox edits do not reach ferry (see docs/netbox-dns.md)',
          );
          return;
        }
        for (const { kind, name, outcome, changed } of hooks) {
          const what =
            kind === 'webhook'
              ? `${name} → POST ${webhook.url}, signed (HMAC-SHA512)`
              : `${name}: created, updated and deleted VMs, interfaces and virtual disks → webhook ${name}`;
          const fieldsChanged = changed ? ` (changed: ${changed.join(', ')})` : '';
          console.log(
            `${outcome.padEnd(9)} ${(kind === 'webhook' ? 'webhook' : 'event rule').padEnd(14)} ${what}${fieldsChanged}`,
          );
        }
      } finally {
        await client.close();
      }
    });
}

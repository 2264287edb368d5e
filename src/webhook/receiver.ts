import { readFileSync } from 'node:fs';
import { ConfigError, parseListenAddress, webhookSecret, type FerryConfig, type ListenAddress } from '../config';
import type { VmFacts } from '../domain/netbox-events';
import { NetboxClient } from '../netbox/client';
import { NetboxError } from '../netbox/errors';
import { lazyClient } from '../temporal/connection';
import { handleDelivery } from './delivery';
import { startWebhookServer } from './server';
import { signalChangeVm } from './signal-change';

export interface NetboxWebhookReceiver {
  /** Where it listens, e.g. `http://127.0.0.1:8787/netbox/webhook`. */
  url: string;
  close(): Promise<void>;
}

export interface ReceiverOptions {
  /** Overrides netbox.webhook.listen (`ferry webhook --listen`). */
  listen?: ListenAddress;
  log?: (line: string) => void;
}

/**
 * ferry's receiver of NetBox's webhook: checks each delivery's signature, reads the VM through ferry's
 * NetBox client where the payload does not carry it, and signals-with-start the VM's `changeVm` on the
 * main task queue. Temporal is connected at the first signal, so the receiver starts while it is down.
 */
export async function startNetboxWebhookReceiver(
  config: FerryConfig,
  options: ReceiverOptions = {},
): Promise<NetboxWebhookReceiver> {
  const webhook = config.netbox?.webhook;
  if (!config.netbox || !webhook)
    throw new ConfigError([
      'netbox.webhook: not configured: set netbox.webhook.url (the address NetBox posts to) and FERRY_NETBOX_WEBHOOK_SECRET',
    ]);
  const secret = webhookSecret(webhook, "ferry's webhook receiver");
  const listen = options.listen ?? parseListenAddress(webhook.listen)!;
  const tls = webhook.certFile && webhook.keyFile ? readTls(webhook.certFile, webhook.keyFile) : undefined;
  const log = options.log ?? ((line: string) => console.log(line));
  const netbox = NetboxClient.fromConfig(config.netbox);
  const temporal = lazyClient(config.temporal);
  const readVm = async (netboxId: number): Promise<VmFacts | 'gone'> => {
    try {
      const { value } = await netbox.getVirtualMachine(netboxId);
      return { status: value.status.value, vmid: value.custom_fields.ferry_vmid };
    } catch (err) {
      if (err instanceof NetboxError && err.status === 404) return 'gone';
      throw err;
    }
  };
  const deps = {
    secret,
    readVm,
    signal: (decision: Parameters<typeof signalChangeVm>[2]) =>
      signalChangeVm(temporal, config.worker.taskQueue, decision),
    log,
  };
  try {
    const server = await startWebhookServer({
      ...listen,
      ...(tls ? { tls } : {}),
      handle: (body, signature) => handleDelivery(deps, body, signature),
      log,
    });
    return {
      url: server.url,
      async close() {
        await server.close();
        await Promise.all([netbox.close(), temporal.connection.close()]);
      },
    };
  } catch (err) {
    await Promise.all([netbox.close(), temporal.connection.close()]);
    throw listenError(err, listen);
  }
}

function readTls(certFile: string, keyFile: string): { cert: Buffer; key: Buffer } {
  const read = (key: string, file: string) => {
    try {
      return readFileSync(file);
    } catch (err) {
      throw new ConfigError([
        `netbox.webhook.${key} (${file}): cannot read it: ${(err as NodeJS.ErrnoException).code ?? String(err)}`,
      ]);
    }
  };
  return { cert: read('certFile', certFile), key: read('keyFile', keyFile) };
}

function listenError(err: unknown, listen: ListenAddress): unknown {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL')
    return new ConfigError([
      `netbox.webhook.listen (${listen.host}:${listen.port}): cannot listen there (${code}); pick another address with --listen or netbox.webhook.listen`,
    ]);
  return err;
}

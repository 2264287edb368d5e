import { connect, type Socket } from 'node:net';

/**
 * A client of the real QEMU guest agent on its virtio-serial port, reached through QEMU's unix-socket
 * chardev (as qemu-server does with /var/run/qemu-server/<vmid>.qga). The protocol is JSON lines; a
 * session starts with a 0xFF byte (resets the agent's parser) and `guest-sync-delimited`, whose reply
 * comes after a 0xFF byte: everything before it is a stale answer from an earlier session and dropped.
 */
export class GuestAgentClient {
  private buffer = Buffer.alloc(0);
  private synced = false;
  private syncId = 0;
  private readonly waiters: { resolve: (v: unknown) => void; reject: (e: Error) => void }[] = [];
  private closedError: Error | undefined;
  private onSync: (() => void) | undefined;

  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk) => this.receive(chunk));
    const fail = (err: Error) => {
      this.closedError ??= err;
      for (const w of this.waiters.splice(0)) w.reject(err);
    };
    socket.on('error', fail);
    socket.on('close', () => fail(new Error('guest agent socket closed')));
  }

  /** Connects and syncs; rejects if the agent does not answer within `timeoutMs`. */
  static async connect(socketPath: string, timeoutMs = 2000): Promise<GuestAgentClient> {
    const socket = await new Promise<Socket>((resolve, reject) => {
      const s = connect(socketPath);
      s.once('connect', () => resolve(s));
      s.once('error', reject);
    });
    const client = new GuestAgentClient(socket);
    try {
      await client.sync(timeoutMs);
      return client;
    } catch (err) {
      client.close();
      throw err;
    }
  }

  private sync(timeoutMs: number): Promise<void> {
    this.syncId = Math.floor(Math.random() * 2 ** 31);
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`guest agent did not answer guest-sync-delimited within ${timeoutMs} ms`)),
        timeoutMs,
      );
      this.onSync = () => {
        clearTimeout(timer);
        resolve();
      };
      this.socket.write(
        Buffer.concat([
          Buffer.from([0xff]),
          Buffer.from(`${JSON.stringify({ execute: 'guest-sync-delimited', arguments: { id: this.syncId } })}\n`),
        ]),
      );
    });
  }

  private receive(chunk: Buffer): void {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    for (;;) {
      const ff = this.buffer.indexOf(0xff);
      const nl = this.buffer.indexOf(0x0a);
      if (ff !== -1 && (nl === -1 || ff < nl)) {
        this.buffer = this.buffer.subarray(ff + 1); // a delimiter: what came before is stale
        continue;
      }
      if (nl === -1) return;
      const line = this.buffer.subarray(0, nl).toString().trim();
      this.buffer = this.buffer.subarray(nl + 1);
      if (!line) continue;
      let reply: { return?: unknown; error?: { class?: string; desc?: string } };
      try {
        reply = JSON.parse(line) as typeof reply;
      } catch {
        continue;
      }
      if (!this.synced) {
        if (reply.return === this.syncId) {
          this.synced = true;
          this.onSync?.();
        }
        continue;
      }
      const waiter = this.waiters.shift();
      if (!waiter) continue;
      if (reply.error) waiter.reject(new GuestAgentError(reply.error.class ?? 'error', reply.error.desc ?? line));
      else waiter.resolve(reply.return);
    }
  }

  /** Runs one agent command and returns its `return` value. */
  execute<T = unknown>(command: string, args?: Record<string, unknown>, timeoutMs = 10_000): Promise<T> {
    if (this.closedError) return Promise.reject(this.closedError);
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`guest agent: no answer to ${command} within ${timeoutMs} ms`)),
        timeoutMs,
      );
      this.waiters.push({
        resolve: (v) => {
          clearTimeout(timer);
          resolve(v as T);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      this.socket.write(`${JSON.stringify(args ? { execute: command, arguments: args } : { execute: command })}\n`);
    });
  }

  close(): void {
    this.socket.destroy();
  }
}

/** The agent's own error reply (`{"error": {"class", "desc"}}`) to a command. */
export class GuestAgentError extends Error {
  constructor(
    readonly errorClass: string,
    readonly desc: string,
  ) {
    super(`guest agent: ${errorClass}: ${desc}`);
  }
}

/** One NIC as `guest-network-get-interfaces` reports it. */
export interface GuestInterface {
  name: string;
  'hardware-address'?: string;
  'ip-addresses'?: { 'ip-address-type': 'ipv4' | 'ipv6'; 'ip-address': string; prefix: number }[];
}

import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import type { Duplex } from 'node:stream';

/**
 * A minimal websocket client (RFC 6455) for tests, as noVNC opens the simulator's vncwebsocket: the
 * `binary` subprotocol, masked frames out, the server's frames in. `status` is the HTTP status of the
 * answer (101 when upgraded).
 */
export interface TestWebSocket {
  status: number;
  messages: Buffer[];
  /** Resolves with everything received so far once it holds at least `bytes` bytes (or the socket closed). */
  received(bytes: number, timeoutMs?: number): Promise<Buffer>;
  send(data: Buffer | string): void;
  closed: Promise<void>;
  close(): void;
}

export function openWebSocket(url: string, caFile: string, authorization: string): Promise<TestWebSocket> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      ca: readFileSync(caFile, 'utf8'),
      headers: { authorization, connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': randomBytes(16).toString('base64'), 'sec-websocket-protocol': 'binary' },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0, messages: [], received: async () => Buffer.alloc(0), send: () => undefined, closed: Promise.resolve(), close: () => undefined });
    });
    req.on('upgrade', (res, socket: Duplex, head: Buffer) => {
      const messages: Buffer[] = [];
      let pending = Buffer.from(head);
      let closedResolve!: () => void;
      const closed = new Promise<void>((r) => (closedResolve = r));
      const waiters: Array<() => void> = [];
      socket.on('data', (chunk: Buffer) => {
        pending = Buffer.concat([pending, chunk]);
        while (pending.length >= 2) {
          let length = pending[1]! & 0x7f;
          let offset = 2;
          if (length === 126) [length, offset] = [pending.readUInt16BE(2), 4];
          else if (length === 127) [length, offset] = [Number(pending.readBigUInt64BE(2)), 10];
          if (pending.length < offset + length) break;
          const opcode = pending[0]! & 0x0f;
          if (opcode === 0x2 || opcode === 0x1 || opcode === 0x0) messages.push(Buffer.from(pending.subarray(offset, offset + length)));
          if (opcode === 0x8) {
            socket.end();
            closedResolve();
          }
          pending = pending.subarray(offset + length);
        }
        waiters.splice(0).forEach((w) => w());
      });
      socket.on('end', () => socket.destroy());
      socket.on('close', () => {
        closedResolve();
        waiters.splice(0).forEach((w) => w());
      });
      const send = (data: Buffer | string) => {
        const payload = Buffer.from(data);
        const mask = randomBytes(4);
        const head2 = payload.length < 126 ? Buffer.from([0x82, 0x80 | payload.length]) : Buffer.from([0x82, 0x80 | 126, payload.length >> 8, payload.length & 0xff]);
        const masked = Buffer.from(payload.map((b, i) => b ^ mask[i % 4]!));
        socket.write(Buffer.concat([head2, mask, masked]));
      };
      let isClosed = false;
      void closed.then(() => (isClosed = true));
      resolve({
        status: res.statusCode ?? 101,
        messages,
        send,
        closed,
        close: () => socket.end(),
        received: (bytes, timeoutMs = 10_000) =>
          new Promise((done, fail) => {
            const timer = setTimeout(() => fail(new Error(`fewer than ${bytes} bytes within ${timeoutMs} ms`)), timeoutMs);
            const check = () => {
              const all = Buffer.concat(messages);
              if (all.length >= bytes || isClosed) {
                clearTimeout(timer);
                done(all);
              } else waiters.push(check);
            };
            check();
          }),
      });
    });
    req.end();
  });
}

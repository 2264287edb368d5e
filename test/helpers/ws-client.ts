import { readFileSync } from 'node:fs';
import WebSocket from 'ws';

/**
 * A websocket client for tests, as noVNC opens the simulator's vncwebsocket: the `binary` subprotocol,
 * the simulator's CA, the API's Authorization header. `status` is the HTTP status of the answer (101
 * when upgraded); a refused upgrade resolves too, with that status and nothing to read.
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
    const ws = new WebSocket(url.replace(/^http/, 'ws'), 'binary', {
      ca: readFileSync(caFile, 'utf8'),
      headers: { authorization },
      perMessageDeflate: false,
    });
    const messages: Buffer[] = [];
    const waiters: Array<() => void> = [];
    let isClosed = false;
    const closed = new Promise<void>((done) =>
      ws.once('close', () => ((isClosed = true), waiters.splice(0).forEach((w) => w()), done())),
    );
    ws.on('message', (data: Buffer) => {
      messages.push(data);
      waiters.splice(0).forEach((w) => w());
    });
    ws.once('unexpected-response', (_req, res) => {
      res.resume();
      resolve({
        status: res.statusCode ?? 0,
        messages: [],
        received: async () => Buffer.alloc(0),
        send: () => undefined,
        closed: Promise.resolve(),
        close: () => undefined,
      });
    });
    ws.once('error', reject);
    ws.once('open', () =>
      resolve({
        status: 101,
        messages,
        send: (data) => ws.send(Buffer.from(data)),
        closed,
        close: () => ws.close(),
        received: (bytes, timeoutMs = 10_000) =>
          new Promise((done, fail) => {
            const timer = setTimeout(
              () => fail(new Error(`fewer than ${bytes} bytes within ${timeoutMs} ms`)),
              timeoutMs,
            );
            const check = () => {
              const all = Buffer.concat(messages);
              if (all.length >= bytes || isClosed) {
                clearTimeout(timer);
                done(all);
              } else waiters.push(check);
            };
            check();
          }),
      }),
    );
  });
}

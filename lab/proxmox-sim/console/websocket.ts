import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';

/**
 * The server side of RFC 6455, as far as pveproxy's websocket_proxy needs it: the handshake (the
 * `binary` subprotocol noVNC and xterm.js ask for; pveproxy also speaks the old `base64` one, which no
 * current client uses), then binary frames both ways, pings answered, a close echoed. Client frames are
 * masked (the RFC requires it); the server's are not.
 */
const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

export interface WebSocketPeer {
  send(data: Buffer): void;
  close(): void;
  onMessage(handler: (data: Buffer) => void): void;
  onClose(handler: () => void): void;
}

/** Answers the upgrade; undefined (and a 400 written) when the request is not a websocket handshake. */
export function acceptWebSocket(req: IncomingMessage, socket: Duplex): WebSocketPeer | undefined {
  const key = req.headers['sec-websocket-key'];
  if (typeof key !== 'string' || (req.headers.upgrade ?? '').toLowerCase() !== 'websocket') {
    socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    return undefined;
  }
  const protocols = String(req.headers['sec-websocket-protocol'] ?? '').split(/\s*,\s*/);
  const accept = createHash('sha1').update(key + GUID).digest('base64');
  socket.write(
    'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
      `Sec-WebSocket-Accept: ${accept}\r\n${protocols.includes('binary') ? 'Sec-WebSocket-Protocol: binary\r\n' : ''}\r\n`,
  );

  const messageHandlers: Array<(data: Buffer) => void> = [];
  const closeHandlers: Array<() => void> = [];
  /** Messages that came before anyone listened (the task takes the peer a moment after the upgrade). */
  const early: Buffer[] = [];
  let closed = false;
  const finish = () => {
    if (closed) return;
    closed = true;
    for (const h of closeHandlers) h();
  };
  const frame = (opcode: number, payload: Buffer) => {
    const length = payload.length;
    const head = length < 126 ? Buffer.from([0x80 | opcode, length]) : length < 65536 ? Buffer.alloc(4) : Buffer.alloc(10);
    if (length >= 126) {
      head[0] = 0x80 | opcode;
      head[1] = length < 65536 ? 126 : 127;
      if (length < 65536) head.writeUInt16BE(length, 2);
      else head.writeBigUInt64BE(BigInt(length), 2);
    }
    if (!socket.destroyed) socket.write(Buffer.concat([head, payload]));
  };

  let pending = Buffer.alloc(0);
  let fragments: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => {
    pending = Buffer.concat([pending, chunk]);
    for (;;) {
      if (pending.length < 2) return;
      const fin = (pending[0]! & 0x80) !== 0;
      const opcode = pending[0]! & 0x0f;
      const masked = (pending[1]! & 0x80) !== 0;
      let length = pending[1]! & 0x7f;
      let offset = 2;
      if (length === 126) {
        if (pending.length < 4) return;
        length = pending.readUInt16BE(2);
        offset = 4;
      } else if (length === 127) {
        if (pending.length < 10) return;
        length = Number(pending.readBigUInt64BE(2));
        offset = 10;
      }
      const maskAt = offset;
      if (masked) offset += 4;
      if (pending.length < offset + length) return;
      const payload = Buffer.from(pending.subarray(offset, offset + length));
      if (masked) for (let i = 0; i < payload.length; i++) payload[i]! ^= pending[maskAt + (i % 4)]!;
      pending = pending.subarray(offset + length);
      if (opcode === 0x8) {
        frame(0x8, payload.subarray(0, 2));
        socket.end();
        finish();
        return;
      }
      if (opcode === 0x9) frame(0xa, payload);
      if (opcode === 0x0 || opcode === 0x1 || opcode === 0x2) {
        fragments.push(payload);
        if (fin) {
          const message = Buffer.concat(fragments);
          fragments = [];
          if (messageHandlers.length === 0) early.push(message);
          for (const h of messageHandlers) h(message);
        }
      }
    }
  });
  socket.on('end', () => socket.end()); // the peer's FIN: ours back, the socket then closes
  socket.on('close', finish);
  socket.on('error', finish);

  return {
    send: (data) => frame(0x2, data),
    close: () => {
      if (!closed && !socket.destroyed) {
        frame(0x8, Buffer.from([0x03, 0xe8])); // 1000: normal closure
        socket.end();
      }
      finish();
    },
    onMessage: (h) => {
      messageHandlers.push(h);
      for (const m of early.splice(0)) h(m);
    },
    onClose: (h) => closeHandlers.push(h),
  };
}

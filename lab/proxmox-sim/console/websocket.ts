import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';

/**
 * The server side of a console websocket, as pveproxy's websocket_proxy speaks it: the `binary`
 * subprotocol that noVNC and xterm.js ask for (pveproxy also speaks the old `base64` one, which no
 * current client uses), binary frames both ways. `ws` does the protocol; this is the peer a console
 * task talks to.
 */
export interface WebSocketPeer {
  send(data: Buffer): void;
  close(): void;
  onMessage(handler: (data: Buffer) => void): void;
  onClose(handler: () => void): void;
}

const server = new WebSocketServer({
  noServer: true,
  perMessageDeflate: false,
  handleProtocols: (protocols) => (protocols.has('binary') ? 'binary' : false),
});

/** Answers the upgrade; undefined when the request is not a websocket handshake (`ws` answers it 400). */
export function acceptWebSocket(
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
): Promise<WebSocketPeer | undefined> {
  return new Promise((resolve) => {
    // `ws` writes the 400 itself and then never calls back: learn of it from the socket closing.
    const refused = () => resolve(undefined);
    socket.once('close', refused);
    server.handleUpgrade(req, socket, head, (ws) => {
      socket.off('close', refused);
      resolve(peerOf(ws));
    });
  });
}

function peerOf(ws: WebSocket): WebSocketPeer {
  const messageHandlers: Array<(data: Buffer) => void> = [];
  /** Messages that came before anyone listened (the task takes the peer a moment after the upgrade). */
  const early: Buffer[] = [];
  ws.on('message', (data: Buffer | ArrayBuffer | Buffer[]) => {
    const message = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
    if (messageHandlers.length === 0) early.push(message);
    for (const h of messageHandlers) h(message);
  });
  ws.on('error', () => ws.terminate());
  return {
    send: (data) => {
      if (ws.readyState === ws.OPEN) ws.send(data, { binary: true });
    },
    close: () => ws.close(1000),
    onMessage: (h) => {
      messageHandlers.push(h);
      for (const m of early.splice(0)) h(m);
    },
    onClose: (h) => {
      if (ws.readyState === ws.CLOSED) h();
      else ws.once('close', () => h());
    },
  };
}

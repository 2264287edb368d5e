import { createSocket } from 'node:dgram';
import { isIPv6 } from 'node:net';
import { connect } from 'node:net';
import { DnsError } from './errors';
import { nameLength } from './message';

export interface Exchange {
  server: string;
  port: number;
  timeoutMs: number;
}

/** The question section of a message (header QDCOUNT questions after the 12-byte header), lower case; undefined if malformed. */
export function questionSection(message: Buffer): Buffer | undefined {
  if (message.length < 12) return undefined;
  let at = 12;
  for (let i = message.readUInt16BE(4); i > 0; i--) {
    const length = nameLength(message, at);
    if (length < 0 || at + length + 4 > message.length) return undefined;
    at += length + 4;
  }
  // Names compare without case (and a server may echo the case we sent, or not).
  return Buffer.from(message.subarray(12, at).toString('latin1').toLowerCase(), 'latin1');
}

/**
 * Sends one message over UDP and returns the first answer that is for it: from the server (the socket
 * is connected to it, so the kernel drops datagrams from anywhere else), with the same ID, and echoing
 * the same question. Anything else is ignored, as a resolver does, so a stray or forged datagram cannot
 * stand in for the answer.
 */
export function exchangeUdp(target: Exchange, message: Buffer): Promise<Buffer> {
  const id = message.readUInt16BE(0);
  const question = questionSection(message);
  return new Promise((resolve, reject) => {
    const socket = createSocket(isIPv6(target.server) ? 'udp6' : 'udp4');
    const done = (err: Error | undefined, answer?: Buffer) => {
      clearTimeout(timer);
      socket.close();
      if (err) reject(err);
      else resolve(answer!);
    };
    const timer = setTimeout(
      () =>
        done(
          new DnsError(
            `no answer from ${target.server}:${target.port} over UDP within ${target.timeoutMs} ms`,
            'transient',
          ),
        ),
      target.timeoutMs,
    );
    socket.on('error', (err) => done(networkError(target, 'UDP', err)));
    socket.on('message', (answer) => {
      if (answer.length < 12 || answer.readUInt16BE(0) !== id) return;
      const echoed = questionSection(answer);
      if (question && echoed && echoed.equals(question)) done(undefined, answer);
    });
    socket.connect(target.port, target.server, () => socket.send(message));
  });
}

/** Sends one message over TCP (two-byte length prefix, RFC 1035 §4.2.2) and returns the answer. */
export function exchangeTcp(target: Exchange, message: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: target.server, port: target.port });
    let received = Buffer.alloc(0);
    const done = (err: Error | undefined, answer?: Buffer) => {
      clearTimeout(timer);
      socket.destroy();
      if (err) reject(err);
      else resolve(answer!);
    };
    const timer = setTimeout(
      () =>
        done(
          new DnsError(
            `no answer from ${target.server}:${target.port} over TCP within ${target.timeoutMs} ms`,
            'transient',
          ),
        ),
      target.timeoutMs,
    );
    socket.on('connect', () => {
      const length = Buffer.alloc(2);
      length.writeUInt16BE(message.length);
      socket.write(Buffer.concat([length, message]));
    });
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (received.length >= 2 && received.length >= 2 + received.readUInt16BE(0)) {
        done(undefined, received.subarray(2, 2 + received.readUInt16BE(0)));
      }
    });
    socket.on('error', (err) => done(networkError(target, 'TCP', err)));
    socket.on('end', () =>
      done(new DnsError(`${target.server}:${target.port} closed the TCP connection without an answer`, 'transient')),
    );
  });
}

function networkError(target: Exchange, proto: string, err: Error): DnsError {
  const code = (err as NodeJS.ErrnoException).code;
  return new DnsError(
    `cannot reach ${target.server}:${target.port} over ${proto}: ${code ?? err.message}`,
    'transient',
    { cause: err },
  );
}

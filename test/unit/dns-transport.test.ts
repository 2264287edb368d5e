import { createSocket, type Socket } from 'node:dgram';
import type { AddressInfo } from 'node:net';
import * as packet from 'dns-packet';
import { encodeQuery } from '../../src/dns/message';
import { exchangeUdp } from '../../src/dns/transport';

/** A UDP "server" on loopback that, for each query, runs `reply` with the query and the client's address. */
async function udpServer(
  reply: (server: Socket, query: Buffer, port: number) => void,
): Promise<{ socket: Socket; port: number }> {
  const socket = createSocket('udp4');
  socket.on('message', (query, from) => reply(socket, query, from.port));
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return { socket, port: (socket.address() as AddressInfo).port };
}

function answerTo(query: Buffer, name: string, address: string): Buffer {
  const id = query.readUInt16BE(0);
  return packet.encode({
    id,
    type: 'response',
    flags: packet.AUTHORITATIVE_ANSWER,
    questions: [{ name, type: 'A', class: 'IN' }],
    answers: [{ name, type: 'A', ttl: 60, data: address }],
  });
}

describe('DNS over UDP', () => {
  const sockets: Socket[] = [];
  afterAll(() => sockets.forEach((s) => s.close()));

  it('takes only the answer from the server that echoes the question, not a forged or mismatched one with the same ID', async () => {
    const forger = createSocket('udp4');
    sockets.push(forger);
    await new Promise<void>((resolve) => forger.bind(0, '127.0.0.1', resolve));
    const server = await udpServer((socket, query, port) => {
      const send = (from: Socket, message: Buffer) => from.send(message, port, '127.0.0.1');
      // Same ID from another source port, as an off-path spoofer who guessed it would send.
      send(forger, answerTo(query, 'web1.lab.example', '203.0.113.66'));
      // From the server, with the ID but another question.
      setTimeout(() => send(socket, answerTo(query, 'other.lab.example', '203.0.113.77')), 50);
      setTimeout(() => send(socket, answerTo(query, 'WEB1.lab.example', '192.0.2.21')), 100);
    });
    sockets.push(server.socket);

    const raw = await exchangeUdp(
      { server: '127.0.0.1', port: server.port, timeoutMs: 5000 },
      encodeQuery(4242, 'web1.lab.example', 'A'),
    );
    const decoded = packet.decode(raw);
    expect(decoded.answers?.map((a) => (a as { data: unknown }).data)).toEqual(['192.0.2.21']);
  });

  it('times out when no answer is for the question', async () => {
    const server = await udpServer((socket, query, port) =>
      socket.send(answerTo(query, 'other.lab.example', '203.0.113.77'), port, '127.0.0.1'),
    );
    sockets.push(server.socket);
    await expect(
      exchangeUdp({ server: '127.0.0.1', port: server.port, timeoutMs: 300 }, encodeQuery(7, 'web1.lab.example', 'A')),
    ).rejects.toThrow(/no answer .* within 300 ms/);
  });
});

import { createServer, type Server } from 'node:net';
import { startNetbox, type NetboxServer } from '../../../lab/netbox-server';

/**
 * The port NetBox was given is taken before gunicorn binds it (a chaos run's Proxmox simulator took it:
 * NetBox's setup then talked to the simulator). gunicorn cannot bind, and NetBox starts on another port.
 */
describe('NetBox whose port is taken before it starts', () => {
  jest.setTimeout(240_000);
  let squatter: Server;
  let netbox: NetboxServer | undefined;
  afterAll(async () => {
    await netbox?.stop();
    await new Promise((r) => squatter?.close(r));
  });

  it('starts on another port, and its URL answers as NetBox', async () => {
    squatter = createServer((socket) => socket.end('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n'));
    await new Promise<void>((r) => squatter.listen(0, '127.0.0.1', r));
    const taken = (squatter.address() as { port: number }).port;
    netbox = await startNetbox({ httpPort: taken });
    expect(netbox.url).not.toBe(`http://127.0.0.1:${taken}`);
    expect(netbox.version).toMatch(/^\d+\.\d+/);
  });
});

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { NetboxHttp } from '../../src/netbox/http';

/** NetBox list answers as a server under change (or a broken proxy) may send them. */
describe('NetBox list pagination', () => {
  let server: Server;
  let base: string;
  const asked: string[] = [];
  let pages: Record<string, { results: Array<{ id: number }>; next: string | null }> = {};

  beforeAll(async () => {
    server = createServer((req, res) => {
      const url = new URL(req.url!, 'http://x');
      asked.push(`${url.pathname}${url.search}`);
      const page = pages[url.searchParams.get('offset') ?? '0'];
      res.writeHead(page ? 200 : 404, { 'content-type': 'application/json' });
      res.end(JSON.stringify(page ? { count: null, ...page } : { detail: 'Not found.' }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  const http = () => new NetboxHttp({ url: base, token: 'nbt_a.b', timeoutMs: 2000 });
  const item = z.object({ id: z.number() });
  const nextAt = (offset: number) => `http://netbox.internal/api/x/?limit=2&offset=${offset}&ordering=id`;

  it('orders offset pages by id, and keeps an object that moved across a page boundary once', async () => {
    asked.length = 0;
    // An object was created before id 2 meanwhile: id 2 shows up again at the top of the next page.
    pages = {
      '0': { results: [{ id: 1 }, { id: 2 }], next: nextAt(2) },
      '2': { results: [{ id: 2 }, { id: 3 }], next: null },
    };
    const h = http();
    expect(await h.list('api/x/', {}, item)).toEqual([{ id: 1 }, { id: 2 }, { id: 3 }]);
    expect(asked[0]).toBe('/api/x/?limit=250&ordering=id');
    expect(asked[1]).toBe('/api/x/?limit=2&offset=2&ordering=id');
    // A caller's own ordering, and cursor paging (ordered by pk already), are left alone.
    asked.length = 0;
    pages = { '0': { results: [{ id: 1 }], next: null } };
    await h.list('api/x/', { ordering: '-created' }, item);
    await h.list('api/x/', { start: 0 }, item);
    expect(asked).toEqual(['/api/x/?limit=250&ordering=-created', '/api/x/?limit=250&start=0']);
    await h.close();
  });

  it("refuses a request line longer than NetBox's gunicorn takes, before sending it, saying so", async () => {
    const before = asked.length;
    const ids = Array.from({ length: 200 }, (_, i) => 1_000_000 + i);
    await expect(http().list('api/x/', { virtual_machine_id: ids }, item)).rejects.toMatchObject({
      category: 'invalid',
      message: expect.stringMatching(/a request line of \d+ bytes, longer than the 4094 NetBox's gunicorn accepts/),
    });
    expect(asked.length).toBe(before);
  });

  it('stops with an error when `next` leads back to a page already read', async () => {
    pages = { '0': { results: [{ id: 1 }], next: nextAt(2) }, '2': { results: [{ id: 2 }], next: nextAt(2) } };
    const h = http();
    await expect(h.list('api/x/', { limit: 2, offset: 0 }, item)).rejects.toMatchObject({
      category: 'invalid',
      message: expect.stringContaining('the next page is one already read'),
    });
    await h.close();
  });
});

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FerryError } from '../../../src/errors';
import { makeLabCertificates } from '../../../lab/vcsim/tls';
import { VsphereTagging } from '../../../src/vsphere/tagging';

/** A small Automation API: two categories with a tag `wave1` each, and the request paths it served. */
describe('vSphere tagging over the Automation API', () => {
  let dir: string;
  let caFile: string;
  let server: Server;
  let port: number;
  const served: string[] = [];
  let breakWith: { status: number; body: string } | undefined;

  const categories: Record<string, string> = { 'cat-a': 'ferry', 'cat-b': 'other' };
  const tags: Record<string, { name: string; category_id: string }> = {
    't-1': { name: 'wave1', category_id: 'cat-a' },
    't-2': { name: 'wave1', category_id: 'cat-b' },
    't-3': { name: 'wave2', category_id: 'cat-b' },
  };

  function route(method: string, url: string): unknown {
    if (method === 'POST' && url === '/rest/com/vmware/cis/session') return 'session-1';
    if (url === '/rest/com/vmware/cis/tagging/category') return Object.keys(categories);
    let m = /^\/rest\/com\/vmware\/cis\/tagging\/category\/id:(.+)$/.exec(url);
    if (m) return { id: m[1], name: categories[m[1]!] };
    if (url === '/rest/com/vmware/cis/tagging/tag') return Object.keys(tags);
    m = /^\/rest\/com\/vmware\/cis\/tagging\/tag\/id:([^?]+)\?~action=list-tags-for-category$/.exec(url);
    if (m) return Object.keys(tags).filter((id) => tags[id]!.category_id === m![1]);
    m = /^\/rest\/com\/vmware\/cis\/tagging\/tag\/id:(.+)$/.exec(url);
    if (m) return { id: m[1], ...tags[m[1]!] };
    if (url.startsWith('/rest/com/vmware/cis/tagging/tag-association'))
      return [
        {
          tag_id: 't-1',
          object_ids: [
            { type: 'VirtualMachine', id: 'vm-7' },
            { type: 'HostSystem', id: 'host-1' },
          ],
        },
      ];
    return undefined;
  }

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'ferry-tagging-'));
    const certs = await makeLabCertificates(dir);
    caFile = certs.caFile;
    server = createServer({ cert: readFileSync(certs.certFile), key: readFileSync(certs.keyFile) }, (req, res) => {
      req.resume();
      req.on('end', () => {
        served.push(`${req.method} ${req.url}`);
        if (breakWith && req.url !== '/rest/com/vmware/cis/session') {
          res.writeHead(breakWith.status, { 'content-type': 'text/html' });
          return void res.end(breakWith.body);
        }
        const value = route(req.method!, req.url!);
        res.writeHead(value === undefined ? 404 : 200, { 'content-type': 'application/json' });
        res.end(value === undefined ? '' : JSON.stringify({ value }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  }, 30_000);

  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  const tagging = () =>
    new VsphereTagging({ host: '127.0.0.1', port, user: 'u', password: 'p', validateCerts: true, caFile });

  it('with a category, reads only that category and its tags, once each', async () => {
    const t = tagging();
    served.length = 0;
    expect(await t.vmsTagged('ferry/wave1')).toEqual(['vm-7']);
    await t.close();
    const gets = served.filter((s) => s.startsWith('GET '));
    expect(gets.filter((s) => s.includes('/tag/id:'))).toEqual(['GET /rest/com/vmware/cis/tagging/tag/id:t-1']);
    expect(gets.filter((s) => s.includes('/category/id:')).sort()).toEqual([
      'GET /rest/com/vmware/cis/tagging/category/id:cat-a',
      'GET /rest/com/vmware/cis/tagging/category/id:cat-b',
    ]);
  });

  it('turns an answer that is not JSON, or not of the expected shape, into a categorized error', async () => {
    breakWith = { status: 200, body: '<html>proxy login</html>' };
    const t = tagging();
    const notJson = await t.vmsTagged('wave1').catch((e: unknown) => e);
    expect(notJson).toBeInstanceOf(FerryError);
    expect(notJson).toMatchObject({
      category: 'invalid',
      message: expect.stringContaining('is not JSON: <html>proxy login</html>'),
    });
    breakWith = { status: 200, body: '{"value": 42}' };
    const wrongShape = await t.vmsTagged('wave1').catch((e: unknown) => e);
    expect(wrongShape).toMatchObject({
      category: 'invalid',
      message: expect.stringContaining('unexpected tag list (value: '),
    });
    breakWith = undefined;
    await t.close();
  });

  it('refuses a CA file it cannot read, naming it', () => {
    expect(
      () =>
        new VsphereTagging({
          host: '127.0.0.1',
          port,
          user: 'u',
          password: 'p',
          validateCerts: true,
          caFile: path.join(dir, 'missing.pem'),
        }),
    ).toThrow(
      expect.objectContaining({
        category: 'invalid',
        message: expect.stringContaining(`vsphere.caFile ${path.join(dir, 'missing.pem')} cannot be read`),
      }),
    );
  });
});

import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface NetboxProxy {
  url: string;
  /** `METHOD /path/ STATUS` of every request passed through, in order (query strings left out). */
  requests: string[];
  close(): Promise<void>;
}

/**
 * A plain HTTP proxy in front of a real NetBox that logs every request and its answer's status, so
 * a test can say exactly which requests an operation made. `dropEtags` makes NetBox answer as
 * before 4.6, without ETag headers.
 */
export async function startNetboxProxy(netboxUrl: string, options: { dropEtags?: boolean } = {}): Promise<NetboxProxy> {
  const upstream = new URL(netboxUrl);
  const requests: string[] = [];
  const proxy = createServer((req, res) => {
    const forward = httpRequest(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
        agent: false,
      },
      (answer) => {
        requests.push(`${req.method} ${new URL(req.url ?? '/', 'http://proxy').pathname} ${answer.statusCode}`);
        const { etag: _dropped, ...withoutEtag } = answer.headers;
        res.writeHead(answer.statusCode ?? 502, options.dropEtags ? withoutEtag : answer.headers);
        answer.pipe(res);
      },
    );
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    requests,
    async close() {
      proxy.closeAllConnections();
      await new Promise((resolve) => proxy.close(resolve));
    },
  };
}

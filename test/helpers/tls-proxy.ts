import { request as httpRequest } from 'node:http';
import { createServer, type Server } from 'node:https';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';

/**
 * HTTPS in front of an HTTP server, as nginx or a load balancer stands in front of NetBox in
 * production: requests and answers pass through unchanged.
 */
export async function startTlsProxy(
  target: string,
  tls: { certFile: string; keyFile: string },
): Promise<{ url: string; close(): Promise<void> }> {
  const upstream = new URL(target);
  const server: Server = createServer(
    { cert: readFileSync(tls.certFile), key: readFileSync(tls.keyFile) },
    (req, res) => {
      const forward = httpRequest(
        { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      forward.on('error', () => res.destroy());
      req.pipe(forward);
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

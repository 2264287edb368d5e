import { createServer as createHttp2Server, constants } from 'node:http2';
import { createServer as createTcpServer, type AddressInfo, type Server } from 'node:net';

export interface NotTemporal {
  /** host:port of a gRPC server that implements no method (as any gRPC service but Temporal's frontend answers it). */
  grpc: string;
  /** host:port of a TCP server that answers like a plain HTTP/1.1 server. */
  http: string;
  close(): Promise<void>;
}

const UNIMPLEMENTED = 12;

/**
 * Servers at which something answers, but not Temporal: a gRPC server over h2c answering every call
 * UNIMPLEMENTED (what grpc-js and tonic say for a method a service does not have), and an HTTP/1.1
 * server (a UI port, a proxy) that accepts the connection and refuses the HTTP/2 preface.
 */
export async function startNotTemporal(): Promise<NotTemporal> {
  const grpc = createHttp2Server();
  grpc.on('stream', (stream, headers) => {
    stream.on('error', () => undefined);
    stream.respond(
      {
        [constants.HTTP2_HEADER_STATUS]: 200,
        [constants.HTTP2_HEADER_CONTENT_TYPE]: 'application/grpc',
        'grpc-status': String(UNIMPLEMENTED),
        'grpc-message': `The server does not implement the method ${String(headers[':path'])}`,
      },
      { endStream: true },
    );
  });
  const http = createTcpServer((socket) => {
    socket.on('error', () => undefined);
    socket.once('data', () => socket.end('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n'));
  });
  const listen = (server: Server | ReturnType<typeof createHttp2Server>) =>
    new Promise<string>((resolve) =>
      server.listen(0, '127.0.0.1', () => resolve(`127.0.0.1:${(server.address() as AddressInfo).port}`)),
    );
  const [grpcAddress, httpAddress] = [await listen(grpc), await listen(http)];
  return {
    grpc: grpcAddress,
    http: httpAddress,
    async close() {
      await new Promise((resolve) => grpc.close(resolve));
      await new Promise((resolve) => http.close(resolve));
    },
  };
}

import { connect } from 'node:net';

/** One line from a TCP service on loopback, or undefined when it does not answer within `timeoutMs`. */
export function readBanner(port: number, timeoutMs = 3000): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    const done = (value: string | undefined) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(value);
    };
    const timer = setTimeout(() => done(undefined), timeoutMs);
    socket.on('data', (chunk) => {
      data += chunk.toString();
      if (data.includes('\n')) done(data.split('\n')[0]);
    });
    socket.on('error', () => done(undefined));
    socket.on('close', () => done(data ? data.split('\n')[0] : undefined));
  });
}

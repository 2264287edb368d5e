import { connect } from 'node:net';

/** A QMP error reply (`{"error": {"class", "desc"}}`), or a connection that failed or timed out. */
export class QmpError extends Error {
  constructor(
    message: string,
    readonly errorClass?: string,
    readonly timeout = false,
  ) {
    super(message);
  }
}

/**
 * Sends one QMP command on a fresh connection to QEMU's monitor socket (greeting, `qmp_capabilities`,
 * the command) and resolves with its `return`, as qemu-server's QMPClient does for each mon_cmd. QEMU
 * serves one monitor client at a time, so a second caller waits for the first to disconnect;
 * `timeoutMs` bounds the whole exchange. With `allowClose` a connection that closes before the reply
 * counts as success (`quit`: QEMU may exit before it answers).
 */
export function qmpCommand(
  socketPath: string,
  command: string,
  args?: Record<string, unknown>,
  options: { timeoutMs?: number; allowClose?: boolean } = {},
): Promise<unknown> {
  const timeoutMs = options.timeoutMs ?? 5000;
  return new Promise((resolve, reject) => {
    const socket = connect(socketPath);
    let buffer = '';
    let stage: 'greeting' | 'capabilities' | 'command' = 'greeting';
    let settled = false;
    const finish = (err: Error | undefined, value?: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if (err) reject(err);
      else resolve(value);
    };
    const timer = setTimeout(
      () => finish(new QmpError(`QMP command '${command}' failed - got timeout`, undefined, true)),
      timeoutMs,
    );
    socket.on('error', (err) => finish(new QmpError(`QMP command '${command}' failed - ${err.message}`)));
    socket.on('close', () => {
      if (stage === 'command' && options.allowClose) finish(undefined, undefined);
      else finish(new QmpError(`QMP command '${command}' failed - client closed connection`));
    });
    socket.on('data', (chunk) => {
      buffer += chunk.toString();
      let nl: number;
      while ((nl = buffer.indexOf('\n')) !== -1) {
        const line = buffer.slice(0, nl).trim();
        buffer = buffer.slice(nl + 1);
        if (!line) continue;
        let message: { QMP?: unknown; return?: unknown; error?: { class?: string; desc?: string }; event?: string };
        try {
          message = JSON.parse(line) as typeof message;
        } catch {
          continue;
        }
        if (message.event) continue;
        if (message.error) {
          finish(new QmpError(message.error.desc ?? 'error', message.error.class));
          return;
        }
        if (stage === 'greeting') {
          stage = 'capabilities';
          socket.write(`${JSON.stringify({ execute: 'qmp_capabilities' })}\n`);
        } else if (stage === 'capabilities') {
          stage = 'command';
          socket.write(`${JSON.stringify(args ? { execute: command, arguments: args } : { execute: command })}\n`);
        } else {
          finish(undefined, message.return);
          return;
        }
      }
    });
  });
}

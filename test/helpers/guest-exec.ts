import { GuestAgentClient } from '../../lab/guest-image/guest-agent-client';

/**
 * Runs a program in a real guest through its QEMU guest agent (guest-exec, then guest-exec-status until
 * it exited) and answers its exit code and output: what the guest itself sees.
 */
export async function guestExec(
  agentSocket: string,
  program: string,
  args: string[],
  timeoutMs = 30_000,
): Promise<{ exitcode?: number; stdout: string; stderr: string }> {
  const agent = await GuestAgentClient.connect(agentSocket, 10_000);
  try {
    const { pid } = await agent.execute<{ pid: number }>('guest-exec', {
      path: program,
      arg: args,
      'capture-output': true,
    });
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const status = await agent.execute<{
        exited: boolean;
        exitcode?: number;
        'out-data'?: string;
        'err-data'?: string;
      }>('guest-exec-status', { pid });
      if (status.exited) {
        const text = (b64?: string) => Buffer.from(b64 ?? '', 'base64').toString();
        return { exitcode: status.exitcode, stdout: text(status['out-data']), stderr: text(status['err-data']) };
      }
      if (Date.now() > deadline)
        throw new Error(`${program} ${args.join(' ')} did not exit within ${timeoutMs} ms in the guest`);
      await new Promise((r) => setTimeout(r, 200));
    }
  } finally {
    agent.close();
  }
}

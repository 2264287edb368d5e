import { fail } from '../api-error';
import { AgentCommandError, qemuRuntime } from '../qemu/runtime';
import { AGENT_BASE } from '../schema/agent-endpoints';
import { assertAgentAvailable } from './agent';
import type { RouteTable, SimRequest } from './types';

/**
 * The guest agent commands Agent.pm registers with parameters, as qemu-server runs them (agent_cmd:
 * assert_agent_available, `guest-<cmd>` on the VM's QGA socket, "Agent error: <desc>" when the agent
 * answers an error): exec (capture-output, base64 input), exec-status (output decoded, booleans 1/0),
 * file-read (open, read in 1 MiB chunks up to `count`, close; `truncated`), file-write (open wb, write,
 * close) and set-user-password. Only a VM under real QEMU has an agent; a simulated one fails
 * assert_agent_available as a VM whose agent does not answer.
 */
const MAX_READ_SIZE = 16 * 1024 * 1024;

async function agentCmd(
  req: SimRequest,
  command: string,
  args: Record<string, unknown>,
  errmsg: string,
): Promise<unknown> {
  const vm = req.cluster.vm(req.params.node!, Number(req.params.vmid));
  await assertAgentAvailable(req.cluster, vm);
  let result: unknown;
  try {
    result = await qemuRuntime(req.cluster)!.agentCommand(vm.vmid, `guest-${command}`, args);
  } catch (err) {
    if (err instanceof AgentCommandError) throw fail(err.message);
    throw err;
  }
  const error = (result as { error?: { desc?: string } } | undefined)?.error;
  if (error?.desc) throw fail(`Agent error: ${error.desc}`);
  if (result === undefined) throw fail(`Agent error: ${errmsg}`);
  return result;
}

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

export const agentCommandRoutes: RouteTable = {
  [`POST ${AGENT_BASE}/exec`]: async (req) => {
    const command = req.params.command ? (JSON.parse(req.params.command) as string[]) : undefined;
    const input = req.params['input-data'];
    const args: Record<string, unknown> = { 'capture-output': true };
    if (command && command.length > 0) {
      args.path = command[0];
      args.arg = command.slice(1);
    }
    if (input !== undefined) args['input-data'] = b64(input);
    if (args.path === undefined && input === undefined) throw fail('command or input-data (or both) required');
    let errmsg = "can't execute command";
    if (command) errmsg += ` (${String(args.path)} ${String(args.arg)})`;
    if (input !== undefined) errmsg += ' (input-data given)';
    return agentCmd(req, 'exec', args, errmsg);
  },

  [`GET ${AGENT_BASE}/exec-status`]: async (req) => {
    const pid = Number(req.params.pid);
    const res = {
      ...((await agentCmd(req, 'exec-status', { pid }, `can't get exec status for '${pid}'`)) as Record<
        string,
        unknown
      >),
    };
    for (const key of ['out-data', 'err-data'])
      if (typeof res[key] === 'string') res[key] = Buffer.from(res[key], 'base64').toString('utf8');
    for (const [key, value] of Object.entries(res)) if (typeof value === 'boolean') res[key] = value ? 1 : 0; // "convert JSON::Boolean to 1/0"
    return res;
  },

  [`GET ${AGENT_BASE}/file-read`]: async (req) => {
    const count = req.params.count !== undefined ? Number(req.params.count) : MAX_READ_SIZE;
    const decode = req.params.decode !== '0';
    const handle = await agentCmd(req, 'file-open', { path: req.params.file }, "can't open file");
    const vmid = Number(req.params.vmid);
    const runtime = qemuRuntime(req.cluster)!;
    if (req.params.offset !== undefined && Number(req.params.offset) > 0) {
      await agentCmd(
        req,
        'file-seek',
        { handle, offset: Number(req.params.offset), whence: 'set' },
        "can't seek to offset position",
      );
    }
    let bytesRead = 0;
    let eof = false;
    const chunks: Buffer[] = [];
    let encoded = '';
    while (bytesRead < count && !eof) {
      const read = (await agentCmd(
        req,
        'file-read',
        { handle, count: Math.min(count - bytesRead, 1024 * 1024) },
        "can't read from file",
      )) as { 'buf-b64': string; count: number; eof?: boolean };
      if (decode) chunks.push(Buffer.from(read['buf-b64'], 'base64'));
      else encoded += read['buf-b64'];
      bytesRead += read.count;
      eof = read.eof ?? false;
    }
    await runtime.agentCommand(vmid, 'guest-file-close', { handle }).catch(() => undefined); // check_agent_error(…, 1): a warning only
    return {
      content: decode ? Buffer.concat(chunks).toString('utf8') : encoded,
      'bytes-read': bytesRead,
      ...(!eof ? { truncated: 1 } : {}),
    };
  },

  [`POST ${AGENT_BASE}/file-write`]: async (req) => {
    const content = req.params.content!;
    const buf = req.params.encode === '0' ? content : b64(content);
    const handle = await agentCmd(req, 'file-open', { path: req.params.file, mode: 'wb' }, "can't open file");
    await agentCmd(req, 'file-write', { handle, 'buf-b64': buf }, "can't write to file");
    await agentCmd(req, 'file-close', { handle }, "can't close file");
    return null;
  },

  [`POST ${AGENT_BASE}/set-user-password`]: async (req) => {
    const args = {
      username: req.params.username,
      password: b64(req.params.password!),
      crypted: req.params.crypted === '1',
    };
    return { result: await agentCmd(req, 'set-user-password', args, 'cannot set user password') };
  },
};

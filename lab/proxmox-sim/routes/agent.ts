import { fail } from '../api-error';
import type { Cluster, SimVm } from '../cluster';
import { AgentCommandError, qemuRuntime } from '../qemu/runtime';
import { AGENT_BASE, AGENT_COMMANDS, AGENT_PARAMETER_COMMANDS } from '../schema/agent-endpoints';
import type { RouteTable, SimRequest } from './types';

/**
 * /nodes/{node}/qemu/{vmid}/agent…: the QEMU guest agent through the API, as qemu-server's
 * PVE/API2/Qemu/Agent.pm answers: each command checks assert_agent_available (in this order: `agent`
 * absent from the config → "No QEMU guest agent configured"; VM not running → "VM <vmid> is not
 * running"; guest-ping unanswered within 3 s → "QEMU guest agent is not running"), then sends
 * `guest-<command>` to the VM's QGA socket and returns `{ result: <the agent's return> }` — an error the
 * agent itself answers comes back unchanged as `{ result: { error: { class, desc } } }`, a failed
 * exchange as mon_cmd's "VM <vmid> qga command '…' failed - …". A simulated VM (no bootable disk) has no
 * agent to answer. The commands with parameters (exec, exec-status, file-read, file-write,
 * set-user-password) are in agent-commands.ts.
 */

/** PVE::QemuServer::Agent::assert_agent_available. */
export async function assertAgentAvailable(cluster: Cluster, vm: SimVm): Promise<void> {
  if (vm.config.agent === undefined) throw fail('No QEMU guest agent configured');
  if (vm.status !== 'running') throw fail(`VM ${vm.vmid} is not running`);
  const runtime = qemuRuntime(cluster);
  if (!runtime?.isRunning(vm.vmid) || !(await runtime.agentRunning(vm.vmid)).ok)
    throw fail('QEMU guest agent is not running');
}

async function agentCommand(req: SimRequest, command: string): Promise<{ result: unknown }> {
  const vm = req.cluster.vm(req.params.node!, Number(req.params.vmid));
  await assertAgentAvailable(req.cluster, vm);
  try {
    const result = await qemuRuntime(req.cluster)!.agentCommand(vm.vmid, `guest-${command}`);
    return { result: result ?? null };
  } catch (err) {
    if (err instanceof AgentCommandError) throw fail(err.message);
    throw err;
  }
}

export const agentRoutes: RouteTable = {
  [`GET ${AGENT_BASE}`]: () =>
    [...Object.keys(AGENT_COMMANDS), ...Object.keys(AGENT_PARAMETER_COMMANDS)].sort().map((name) => ({ name })),
  // The old generic endpoint, kept by PVE for compatibility: the command is a parameter.
  [`POST ${AGENT_BASE}`]: (req) => agentCommand(req, req.params.command!),
  ...Object.fromEntries(
    Object.entries(AGENT_COMMANDS).map(([command, method]) => [
      `${method} ${AGENT_BASE}/${command}`,
      (req: SimRequest) => agentCommand(req, command),
    ]),
  ),
};

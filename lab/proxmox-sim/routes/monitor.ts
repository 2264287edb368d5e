import { fail, paramError } from '../api-error';
import type { Cluster, SimVm } from '../cluster';
import { HMP_COMMAND_PERMS } from '../hmp-perms';
import { qmpCommand } from '../../qemu/qmp';
import { qemuRuntime } from '../qemu/runtime';
import type { RouteTable, SimRequest } from './types';

/**
 * `POST …/monitor` and `PUT …/sendkey` (qemu-server's monitor and vm_sendkey): a human monitor command
 * through QMP's human-monitor-command. A VM under real QEMU answers for itself. A simulated VM answers
 * the few commands the simulator models (`info status|version|name`, `help`, `sendkey`, `system_reset`,
 * `stop`, `cont`); any other command's answer reads "ERROR: … not simulated", as PVE reports a failed
 * command ("ERROR: <why>"). A VM that is not running: "VM <vmid> not running".
 */
const vmOf = (req: SimRequest): SimVm => req.cluster.vm(req.params.node!, Number(req.params.vmid));

function simulatedHmp(cluster: Cluster, vm: SimVm, command: string): string {
  const [name, ...args] = command.trim().split(/\s+/);
  const version = cluster.flavour === '9.1' ? '10.1.2' : '9.2.0';
  switch (name) {
    case 'info':
      if (args[0] === 'status') return `VM status: ${vm.paused ? 'paused' : 'running'}\r\n`;
      if (args[0] === 'version') return `${version}pve-qemu-kvm_${version}-1\r\n`;
      if (args[0] === 'name') return `${vm.config.name ?? `VM ${vm.vmid}`}\r\n`;
      break;
    case 'help':
    case '?':
      return 'info [subcommand] -- show various information about the system state\r\nsendkey keys [hold_ms] -- send keys to the VM\r\nsystem_reset  -- reset the system\r\n';
    case 'sendkey':
      if (!args[0] || !/^[a-z0-9_]+(-[a-z0-9_]+)*$/i.test(args[0])) return `invalid parameter: ${args[0] ?? ''}\r\n`;
      return '';
    case 'system_reset':
      return '';
    case 'stop':
      vm.paused = true;
      return '';
    case 'cont':
    case 'c':
      vm.paused = false;
      return '';
  }
  throw new Error(`monitor command '${command.trim()}' is not simulated for a VM without QEMU`);
}

/** PVE::QemuServer::Monitor::hmp_cmd. */
async function hmpCmd(cluster: Cluster, vm: SimVm, command: string): Promise<string> {
  if (vm.status !== 'running') throw new Error(`VM ${vm.vmid} not running`);
  const qmp = qemuRuntime(cluster)?.get(vm.vmid)?.qmp;
  if (!qmp) return simulatedHmp(cluster, vm, command);
  return String(await qmpCommand(qmp, 'human-monitor-command', { 'command-line': command }, { timeoutMs: 25_000 }));
}

export const monitorRoutes: RouteTable = {
  'POST /nodes/{node}/qemu/{vmid}/monitor': async (req) => {
    const command = req.params.command!;
    const name = /^\s*(\S+)/.exec(command)?.[1];
    if (!command) throw fail('no command specified');
    if (!name) throw fail(`unexpected command '${command}'`);
    const required = HMP_COMMAND_PERMS[name];
    if (!required && req.user !== 'root@pam')
      throw fail(`command '${name}' non-existent or not assigned a required permission yet, limiting to root user`);
    if (required === 'root' && req.user !== 'root@pam') throw fail(`root-only command '${name}'`);
    const vm = vmOf(req);
    try {
      return await hmpCmd(req.cluster, vm, command);
    } catch (err) {
      return `ERROR: ${err instanceof Error ? err.message : String(err)}\n`;
    }
  },

  'PUT /nodes/{node}/qemu/{vmid}/sendkey': async (req) => {
    if (req.params.skiplock === '1' && req.user !== 'root@pam')
      throw paramError({ skiplock: 'Only root may use this option.' });
    const vm = vmOf(req);
    await vm.flock.run(req.cluster.settings.flockTimeoutMs, async () => {
      req.cluster.checkLock(vm, req.params.skiplock);
      const res = await hmpCmd(req.cluster, vm, `sendkey ${req.params.key}`).catch((err: Error) => {
        throw fail(err.message);
      });
      if (res !== '') throw fail(res);
    });
    return null;
  },
};

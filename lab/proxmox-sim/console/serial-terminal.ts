import type { SimVm } from '../cluster';
import type { TaskContext } from '../tasks';
import { verifyTicket } from './tickets';
import type { WebSocketPeer } from './websocket';

/**
 * termproxy's session once its client is connected: the first message is `user:ticket`, checked as
 * termproxy's --vncticket-endpoint does (a PVEVNC ticket for the VM's path and port), answered `OK`; then
 * `qm terminal` runs, whose checks and messages are qemu-server's (qm.pm terminal): the serial interface
 * must be configured as `socket`, the VM running. It then runs socat on /var/run/qemu-server/<vmid>.serialN,
 * a socket no simulated VM has (the simulator's QEMU keeps serial0 in a log file), so socat's error is
 * what the terminal shows; qm ignores socat's exit code and the session ends without an error, as on PVE.
 */
const SERIALS = ['serial0', 'serial1', 'serial2', 'serial3'];

function firstMessage(peer: WebSocketPeer): Promise<string | undefined> {
  return new Promise((resolve) => {
    peer.onMessage((data) => resolve(data.toString('utf8')));
    peer.onClose(() => resolve(undefined));
  });
}

export async function serialTerminal(
  vm: SimVm,
  iface: string | undefined,
  port: number,
  peer: WebSocketPeer,
  task: TaskContext,
  running: () => boolean,
): Promise<void> {
  const hello = await firstMessage(peer);
  if (hello === undefined) throw new Error('client closed the connection before authenticating');
  const [user, ...ticket] = hello.trim().split(':');
  try {
    verifyTicket('PVEVNC', ticket.join(':'), user ?? '', `/vms/${vm.vmid}`, port);
  } catch (err) {
    peer.close();
    throw err;
  }
  peer.send(Buffer.from('OK'));
  const say = (line: string) => {
    task.log(line);
    peer.send(Buffer.from(`${line}\r\n`));
  };
  try {
    let chosen = iface;
    if (chosen) {
      if (!vm.config[chosen]) throw new Error(`serial interface '${chosen}' is not configured`);
      if (vm.config[chosen] !== 'socket') throw new Error(`wrong serial type on interface '${chosen}'`);
    } else {
      chosen = SERIALS.find((s) => vm.config[s] === 'socket');
      if (!chosen) throw new Error('unable to find a serial interface');
    }
    if (!running()) throw new Error(`VM ${vm.vmid} not running`);
    say(`starting serial terminal on interface ${chosen}`);
    say(
      `socat E connect(5, AF=1 "/var/run/qemu-server/${vm.vmid}.${chosen}", ${`/var/run/qemu-server/${vm.vmid}.${chosen}`.length + 3}): No such file or directory`,
    );
  } catch (err) {
    say((err as Error).message); // qm dies with it; termproxy then ends with its child
  } finally {
    peer.close();
  }
}

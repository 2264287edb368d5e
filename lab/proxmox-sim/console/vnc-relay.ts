import { connect as connectUnix } from 'node:net';
import { qmpCommand } from '../../qemu/qmp';
import type { Cluster, SimVm } from '../cluster';
import { qemuRuntime } from '../qemu/runtime';
import type { TaskContext } from '../tasks';
import type { WebSocketPeer } from './websocket';

/**
 * What `qm vncproxy` does once vncproxy's worker has its client: set the one-time VNC password over QMP
 * (set_password, expire_password +30), connect to the VM's VNC unix socket and relay both ways until
 * either side closes. Only a VM under real QEMU has that socket; for any other the relay fails as qm's
 * does when the socket is missing, and the worker dies "Failed to run vncproxy." (qm's exit code is not
 * 0). PVE's qm waits up to 9 s for the socket to appear first; the simulator knows at once.
 */
export async function relayVnc(
  cluster: Cluster,
  vm: SimVm,
  password: string,
  peer: WebSocketPeer,
  task: TaskContext,
): Promise<void> {
  const failed = (why: string): never => {
    task.log(why);
    peer.close();
    throw new Error('Failed to run vncproxy.');
  };
  if (vm.status !== 'running') failed(`VM ${vm.vmid} not running`);
  const qemu = qemuRuntime(cluster)?.get(vm.vmid);
  if (!qemu) failed(`unable to connect to socket '/var/run/qemu-server/${vm.vmid}.vnc' - No such file or directory`);
  try {
    await qmpCommand(qemu!.qmp, 'set_password', { protocol: 'vnc', password }, { timeoutMs: 5000 });
    await qmpCommand(qemu!.qmp, 'expire_password', { protocol: 'vnc', time: '+30' }, { timeoutMs: 5000 });
  } catch (err) {
    failed(`VM ${vm.vmid} qmp command 'set_password' failed - ${(err as Error).message}`);
  }
  const socket = connectUnix(qemu!.vnc);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', (err) => reject(err));
  }).catch((err: Error) => failed(`unable to connect to socket '${qemu!.vnc}' - ${err.message}`));
  await new Promise<void>((resolve) => {
    const end = () => {
      socket.destroy();
      peer.close();
      resolve();
    };
    socket.on('data', (data: Buffer) => peer.send(data));
    socket.on('close', end);
    socket.on('error', end);
    peer.onMessage((data) => socket.write(data));
    peer.onClose(end);
    task.signal.addEventListener('abort', end, { once: true });
  });
}

import { fail, paramError } from '../api-error';
import type { Cluster } from '../cluster';
import { acceptOne } from '../console/listeners';
import { assembleTicket, verifyTicket } from '../console/tickets';
import type { WebSocketPeer } from '../console/websocket';
import type { TaskContext } from '../tasks';
import { startTask, type RouteTable } from './types';

/**
 * The target side of a remote migration (qemu-server API2/Qemu.pm mtunnel, mtunnelwebsocket): mtunnel
 * checks the storages and bridges, creates an empty config locked `create`, and starts a `qmtunnel` task
 * that listens on /run/qemu-server/<vmid>.mtunnel for 300 s, then speaks the tunnel's JSON lines (one
 * websocket message each, `{"cmd": …}` answered `{"success": …}`). It answers a PVETUNNEL ticket for
 * that socket, which mtunnelwebsocket checks before server.ts relays the upgrade to the task.
 * The simulator handles `version`, `unlock`, `quit` (with `cleanup`) and `ticket`; the commands that
 * move a VM (`config`, `disk`, `disk-import`, `start`, …) answer that they are not simulated.
 */
const ACCEPT_TIMEOUT_MS = 300_000;
const WS_TUNNEL_VERSION = 2; // PVE::QemuMigrate's $WS_TUNNEL_VERSION

/** The simulator's "local" node: the one /cluster/status marks `local: 1`. */
const localNode = (cluster: Cluster) => cluster.nodes[0]!;

function requireLocal(cluster: Cluster, node: string): string {
  const nodename = localNode(cluster);
  if (node !== 'localhost' && node !== nodename)
    throw paramError({ node: `node needs to be 'localhost' or local hostname '${nodename}'` });
  return nodename;
}

const split = (v?: string) => (v ? v.split(/[,;\s]+/).filter(Boolean) : []);

async function serveTunnel(cluster: Cluster, vmid: number, peer: WebSocketPeer, task: TaskContext): Promise<void> {
  const state = { exit: false, lock: 'create' as string | undefined };
  const reply = (body: Record<string, unknown>) => peer.send(Buffer.from(`${JSON.stringify(body)}\n`));
  const handlers: Record<string, (params: Record<string, unknown>) => Record<string, unknown> | undefined> = {
    version: () => ({ api: WS_TUNNEL_VERSION, age: 0 }),
    unlock: () => {
      const vm = cluster.vms.get(vmid);
      if (vm && vm.config.lock === state.lock) delete vm.config.lock;
      state.lock = undefined;
      return undefined;
    },
    ticket: (params) => {
      throw new Error(`Not allowed to generate ticket for unknown socket '${String(params.path)}'`);
    },
    quit: (params) => {
      if (params.cleanup) cluster.vms.delete(vmid);
      task.log('switching to exit-mode, waiting for client to disconnect');
      state.exit = true;
      return undefined;
    },
  };
  await new Promise<void>((resolve) => {
    peer.onMessage((data) => {
      for (const line of data.toString('utf8').split('\n').filter(Boolean)) {
        let parsed: Record<string, unknown>;
        try {
          parsed = JSON.parse(line) as Record<string, unknown>;
        } catch (err) {
          reply({ success: false, msg: `failed to parse command - ${(err as Error).message}` });
          continue;
        }
        const cmd = parsed.cmd as string | undefined;
        delete parsed.cmd;
        if (cmd === undefined) reply({ success: false, msg: "'cmd' missing" });
        else if (state.exit)
          reply({ success: false, msg: `tunnel is in exit-mode, processing '${cmd}' cmd not possible` });
        else if (handlers[cmd]) {
          task.log(`received command '${cmd}'`);
          try {
            const vm = cluster.vms.get(vmid);
            if (state.lock && vm?.config.lock !== state.lock)
              throw new Error('Encountered wrong lock - aborting mtunnel command handling.');
            reply({ ...(handlers[cmd]!(parsed) ?? {}), success: true });
          } catch (err) {
            reply({ success: false, msg: `failed to handle '${cmd}' command - ${(err as Error).message}` });
          }
        } else if (
          [
            'config',
            'disk',
            'disk-import',
            'query-disk-import',
            'bwlimit',
            'start',
            'fstrim',
            'stop',
            'nbdstop',
            'resume',
          ].includes(cmd)
        ) {
          reply({ success: false, msg: `failed to handle '${cmd}' command - not simulated` });
        } else reply({ success: false, msg: `unknown command '${cmd}' given` });
      }
    });
    peer.onClose(resolve);
  });
  if (state.exit) task.log('mtunnel exited');
  else throw new Error('mtunnel exited unexpectedly');
}

export const tunnelRoutes: RouteTable = {
  'POST /nodes/{node}/qemu/{vmid}/mtunnel': (req) => {
    const { cluster, params, user } = req;
    const node = requireLocal(cluster, params.node!);
    const vmid = Number(params.vmid);
    for (const storage of split(params.storages)) {
      const spec = cluster.storages.require(storage);
      if (!spec.content.includes('images')) throw fail(`storage '${storage}' does not support vm images`);
    }
    for (const bridge of split(params.bridges))
      if (!cluster.bridges.includes(bridge)) throw fail(`bridge '${bridge}' does not exist`);
    const existing = cluster.vms.get(vmid);
    if (existing || cluster.vmidTaken(vmid))
      throw paramError({
        vmid: `unable to create empty VM config - VM ${vmid} already exists on node '${existing?.node ?? node}'`,
      });
    cluster.newVm(node, vmid, { lock: 'create' });
    const socket = `/run/qemu-server/${vmid}.mtunnel`;
    const ticket = assembleTicket('PVETUNNEL', user, `/socket/${socket}`);
    const task = startTask(req, { node, type: 'qmtunnel', id: String(vmid) }, async (ctx) => {
      ctx.log('mtunnel started');
      let peer: WebSocketPeer;
      try {
        peer = await acceptOne(cluster, `socket:${socket}`, ctx, ACCEPT_TIMEOUT_MS, 'got timeout');
      } catch (err) {
        ctx.warn(`Failed to accept tunnel connection - ${(err as Error).message}`);
        ctx.warn('Removing tunnel socket..');
        ctx.warn('Removing temporary VM config..');
        if (cluster.vms.get(vmid)?.config.lock === 'create') cluster.vms.delete(vmid);
        throw new Error('Exiting mtunnel');
      }
      await serveTunnel(cluster, vmid, peer, ctx);
    });
    return { ticket, upid: task.upid, socket };
  },

  /** `user => 'all'`: the ticket is the check. The relay happens on the websocket upgrade (server.ts). */
  'GET /nodes/{node}/qemu/{vmid}/mtunnelwebsocket': (req) => {
    const { cluster, params } = req;
    requireLocal(cluster, params.node!);
    const vmid = Number(params.vmid);
    const vm = cluster.vms.get(vmid);
    if (!vm) throw fail(`Configuration file 'nodes/${localNode(cluster)}/qemu-server/${vmid}.conf' does not exist`);
    verifyTicket('PVETUNNEL', params.ticket!, req.user, `/socket/${params.socket}`);
    return { socket: params.socket! };
  },
};

import { parsePropertyString } from '../../../src/proxmox/property-string';
import { fail } from '../api-error';
import type { Cluster, SimVm } from '../cluster';
import { acceptOne, release, reserveVncPort } from '../console/listeners';
import { serialTerminal } from '../console/serial-terminal';
import { assembleSpiceTicket, assembleTicket, generateVncPassword, verifyVncTicket } from '../console/tickets';
import { relayVnc } from '../console/vnc-relay';
import { qmpCommand } from '../../qemu/qmp';
import { qemuRuntime } from '../qemu/runtime';
import { startTask, type RouteTable, type SimRequest } from './types';

/**
 * The VM's consoles (qemu-server API2/Qemu.pm vncproxy, termproxy, vncwebsocket, spiceproxy). vncproxy
 * and termproxy start a `vncproxy` task that listens on a port of 5900–5999 for 10 s (vncterm's and the
 * worker's timeout) and answers a PVEVNC ticket bound to user, `/vms/<vmid>` and that port; the client
 * then opens `…/vncwebsocket?port=…&vncticket=…`, which checks the ticket, and the server relays the
 * websocket to the task (server.ts's upgrade, console/listeners.ts). The VNC relay reaches a real QEMU's
 * VNC socket (console/vnc-relay.ts); termproxy's session is qm terminal's (console/serial-terminal.ts).
 */
const CONNECT_TIMEOUT_MS = 10_000;

const vmOf = (req: SimRequest): SimVm => req.cluster.vm(req.params.node!, Number(req.params.vmid));

/** A `vga: serialN` display: the console is that serial port through vncterm. */
function serialDisplay(config: Record<string, string>): string | undefined {
  if (!config.vga) return undefined;
  const type = parsePropertyString(config.vga, 'type').type;
  return type && /^serial\d+$/.test(type) ? type : undefined;
}

/** check_running (the runtime keeps `status` in step with its QEMU). */
const running = (_cluster: Cluster, vm: SimVm) => vm.status === 'running';

/** The simulator's CA, what PVE answers as `cert` (/etc/pve/pve-root-ca.pem); server.ts sets it. */
const caPems = new WeakMap<Cluster, string>();
export const setConsoleCa = (cluster: Cluster, pem: string) => caPems.set(cluster, pem);

/** The vga types qemu-server gives a SPICE display (vga_conf_has_spice, and virtio's is_spice). */
const hasSpice = (config: Record<string, string>) =>
  /^(qxl[234]?|virtio(-gl)?)$/.test(parsePropertyString(config.vga ?? '', 'type').type ?? '');

/** spice_port: query-spice's tls-port or port, else "no spice port"; a VM that is not running has no monitor. */
async function spicePort(cluster: Cluster, vm: SimVm): Promise<number> {
  if (!running(cluster, vm)) throw fail(`VM ${vm.vmid} not running`);
  const qemu = qemuRuntime(cluster)?.get(vm.vmid);
  let port: number | undefined;
  if (qemu) {
    const info = (await qmpCommand(qemu.qmp, 'query-spice', undefined, { timeoutMs: 5000 }).catch((err: Error) => {
      throw fail(`VM ${vm.vmid} qmp command 'query-spice' failed - ${err.message}`);
    })) as { 'tls-port'?: number; port?: number };
    port = info['tls-port'] || info.port;
  } else if (hasSpice(vm.config)) {
    // A simulated VM's QEMU would have been started with `-spice tls-port=…`: PVE's first is 61000.
    port =
      61000 +
      [...cluster.vms.values()].filter(
        (v) => v.node === vm.node && v.status === 'running' && hasSpice(v.config) && v.vmid < vm.vmid,
      ).length;
  }
  if (!port) throw fail('no spice port');
  return port;
}

export const consoleRoutes: RouteTable = {
  'POST /nodes/{node}/qemu/{vmid}/vncproxy': (req) => {
    const { cluster, params, user } = req;
    const vm = vmOf(req);
    const serial = serialDisplay(vm.config);
    const port = reserveVncPort(cluster);
    let ticket = assembleTicket('PVEVNC', user, `/vms/${vm.vmid}`, port);
    let password: string | undefined;
    if (params['generate-password'] === '1' || !serial || params.websocket === '1') {
      password = generateVncPassword();
      ticket = `${password}:${ticket}`; // PVE's compatibility form: the VNC password before the ticket
    }
    const task = startTask(
      req,
      { node: vm.node, type: 'vncproxy', id: String(vm.vmid) },
      async (ctx) => {
        const peer = await acceptOne(cluster, `port:${port}`, ctx, CONNECT_TIMEOUT_MS, 'connection timed out');
        if (serial) await serialTerminal(vm, serial, port, peer, ctx, () => running(cluster, vm));
        else await relayVnc(cluster, vm, password!, peer, ctx);
      },
      () => release(cluster, `port:${port}`),
    );
    return {
      user,
      ticket,
      port,
      upid: task.upid,
      cert: caPems.get(cluster) ?? '',
      ...(password !== undefined ? { password } : {}),
    };
  },

  'POST /nodes/{node}/qemu/{vmid}/termproxy': (req) => {
    const { cluster, user } = req;
    const vm = vmOf(req);
    const serial = req.params.serial ?? serialDisplay(vm.config);
    const port = reserveVncPort(cluster);
    const ticket = assembleTicket('PVEVNC', user, `/vms/${vm.vmid}`, port);
    const task = startTask(
      req,
      { node: vm.node, type: 'vncproxy', id: String(vm.vmid) },
      async (ctx) => {
        const peer = await acceptOne(cluster, `port:${port}`, ctx, CONNECT_TIMEOUT_MS, 'connection timed out');
        await serialTerminal(vm, serial, port, peer, ctx, () => running(cluster, vm));
      },
      () => release(cluster, `port:${port}`),
    );
    return { user, ticket, port, upid: task.upid };
  },

  /** The ticket check; the relay itself happens on the websocket upgrade (server.ts). */
  'GET /nodes/{node}/qemu/{vmid}/vncwebsocket': (req) => {
    const port = Number(req.params.port);
    verifyVncTicket(req.params.vncticket!, req.user, `/vms/${req.params.vmid}`, port);
    vmOf(req);
    return { port: req.params.port! }; // a parameter as it came: a string
  },

  'POST /nodes/{node}/qemu/{vmid}/spiceproxy': async (req) => {
    const { cluster, params } = req;
    const vm = vmOf(req);
    const title = `VM ${vm.vmid}${vm.config.name ? ` - ${vm.config.name}` : ''}`;
    const port = await spicePort(cluster, vm);
    const { ticket, proxyTicket } = assembleSpiceTicket(vm.vmid, vm.node);
    const qemu = qemuRuntime(cluster)?.get(vm.vmid);
    if (qemu) {
      await qmpCommand(qemu.qmp, 'set_password', { protocol: 'spice', password: ticket }, { timeoutMs: 5000 });
      await qmpCommand(qemu.qmp, 'expire_password', { protocol: 'spice', time: '+30' }, { timeoutMs: 5000 });
    }
    const proxy = params.proxy ?? vm.node;
    return {
      'secure-attention': 'Ctrl+Alt+Ins',
      'toggle-fullscreen': 'Shift+F11',
      'release-cursor': 'Ctrl+Alt+R',
      type: 'spice',
      title,
      host: proxyTicket,
      proxy: `http://${proxy.includes(':') ? `[${proxy}]` : proxy}:3128`,
      'tls-port': port,
      'host-subject': `OU=PVE Cluster Node,O=Proxmox Virtual Environment,CN=${vm.node}.lab`,
      ca: (caPems.get(cluster) ?? '').replace(/\n/g, '\\n'),
      password: ticket,
      'delete-this-file': 1,
    };
  },
};

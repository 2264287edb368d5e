import { randomUUID, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import path from 'node:path';
import { ApiError, fail } from './api-error';
import { Cluster, configDigest, VERSIONS, type ClusterSpec, type SimIdentity, type SimSettings } from './cluster';
import { z } from 'zod';
import { FaultInjector, faultSettingsSchema, type FaultDecision, type FaultSettings } from './faults';
import { haRoutes } from './ha/routes';
import { handleQemuAdmin } from './qemu/admin';
import { attachQemuRuntime, QemuRuntime } from './qemu/runtime';
import { accessRoutes } from './routes/access';
import { agentRoutes } from './routes/agent';
import { agentCommandRoutes } from './routes/agent-commands';
import { cloudinitRoutes } from './routes/cloudinit';
import { connect as connectListener } from './console/listeners';
import { acceptWebSocket } from './console/websocket';
import { consoleRoutes, setConsoleCa } from './routes/console';
import { dbusVmstateRoutes } from './routes/dbus-vmstate';
import { remoteMigrateRoutes } from './routes/remote-migrate';
import { tunnelRoutes } from './routes/tunnel';
import { clusterRoutes } from './routes/cluster';
import { lxcRoutes } from './routes/lxc';
import { nodeRoutes } from './routes/nodes';
import { cloneRoutes } from './routes/clone';
import { featureRoutes } from './routes/feature';
import { firewallRoutes } from './routes/firewall';
import { migrateRoutes } from './routes/migrate';
import { monitorRoutes } from './routes/monitor';
import { poolRoutes } from './routes/pools';
import { powerStateRoutes } from './routes/power-states';
import { qemuRoutes } from './routes/qemu';
import { qemuIndexRoutes } from './routes/qemu-index';
import { rrdRoutes } from './routes/rrd';
import { sdnRoutes } from './routes/sdn';
import { snapshotRoutes } from './routes/snapshots';
import { storageRoutes } from './routes/storage';
import { templateRoutes } from './routes/templates';
import { WithTotal, type Handler, type SimRequest } from './routes/types';
import { SIMULATED_ENDPOINTS } from './schema/endpoints';
import { loadSubset, type Flavour } from './schema/subset';
import { validateParams, type RawValue } from './schema/validate';
import { createSimulatorTls } from './tls';
import { setNodeFingerprint } from './node-certificate';
import { checkApiPermissions, type SchemaPermissions } from './access/api-check';
import { PermissionChecker, permissionDenied } from './access/permissions';
import { ROUTE_CHECKS } from './access/route-checks';
import { receiveUpload } from './storage-upload/multipart';
import { storageUploadRoutes } from './storage-upload/routes';
import { accessUserRoutes } from './routes/access-users';
import { accessGroupRoutes } from './routes/access-groups';
import { accessRealmRoutes } from './routes/access-realms';
import { clusterInfoRoutes } from './routes/cluster-info';
import { haStatusRoutes } from './ha/status-routes';
import { nodeInfoRoutes } from './routes/node-info';
import { storageContentRoutes } from './routes/storage-content';
import { sdnObjectRoutes } from './routes/sdn-objects';
import { sdnVnetExtraRoutes } from './routes/sdn-vnet-extras';

/**
 * The Proxmox VE simulator: HTTPS on loopback speaking /api2/json like a PVE cluster of several nodes.
 * Every request is checked against the official schema of its flavour (8.4 or 9.1) before a handler sees
 * it. Outside /api2/json, `/_sim/…` is the admin endpoint for tests: faults, settings, state and the
 * request/task log.
 */
export interface SimulatorOptions extends Omit<ClusterSpec, 'settings'> {
  /** TLS files go under `<stateDir>/tls`. */
  stateDir: string;
  host?: string;
  /** 0 (default) picks a free port. */
  port?: number;
  settings?: Partial<SimSettings>;
  faults?: FaultSettings;
}

export interface RequestLogEntry {
  seq: number;
  method: string;
  /** Path below /api2/json (no query). */
  path: string;
  startMs: number;
  endMs?: number;
  status?: number;
  user?: string;
  fault?: string;
}

export interface ConnectionStats {
  /** TCP connections accepted since start (or the last log reset). */
  opened: number;
  open: number;
  peakOpen: number;
}

export interface ProxmoxSimulator {
  flavour: Flavour;
  host: string;
  port: number;
  /** `https://127.0.0.1:PORT` */
  url: string;
  caFile: string;
  cluster: Cluster;
  faults: FaultInjector;
  requests: RequestLogEntry[];
  connections: ConnectionStats;
  stop(): Promise<void>;
}

interface Route {
  template: string;
  segments: string[];
  handlers: Partial<Record<string, Handler>>;
}

const ALL_ROUTES: Record<string, Handler> = {
  ...clusterRoutes,
  ...nodeRoutes,
  ...storageRoutes,
  ...poolRoutes,
  ...qemuIndexRoutes,
  ...qemuRoutes,
  ...lxcRoutes,
  ...sdnRoutes,
  ...accessRoutes,
  ...agentRoutes,
  ...haRoutes,
  ...snapshotRoutes,
  ...cloneRoutes,
  ...templateRoutes,
  ...featureRoutes,
  ...powerStateRoutes,
  ...migrateRoutes,
  ...agentCommandRoutes,
  ...cloudinitRoutes,
  ...rrdRoutes,
  ...monitorRoutes,
  ...firewallRoutes,
  ...consoleRoutes,
  ...tunnelRoutes,
  ...remoteMigrateRoutes,
  ...dbusVmstateRoutes,
  ...accessUserRoutes,
  ...accessGroupRoutes,
  ...accessRealmRoutes,
  ...clusterInfoRoutes,
  ...haStatusRoutes,
  ...nodeInfoRoutes,
  ...storageContentRoutes,
  ...storageUploadRoutes,
  ...sdnObjectRoutes,
  ...sdnVnetExtraRoutes,
};

/** Calls pve-manager's auth_handler lets through without authentication (a login takes a password). */
const WORLD_ROUTES = new Set([
  'POST /access/ticket',
  'GET /access/ticket',
  'GET /access/domains',
  'POST /access/vncticket',
  'POST /access/openid/login',
  'POST /access/openid/auth-url',
]);

function buildRoutes(flavour: Flavour): Route[] {
  const subset = loadSubset(flavour);
  const routes: Route[] = [];
  for (const { path: template, methods } of SIMULATED_ENDPOINTS) {
    if (!subset.endpoints[template]) continue; // not in this version: 501 like any unknown path
    const handlers: Route['handlers'] = {};
    for (const method of methods) {
      if (!subset.endpoints[template]![method]) continue; // a method this version lacks
      const handler = ALL_ROUTES[`${method} ${template}`];
      if (!handler) throw new Error(`simulator: no handler for ${method} ${template}`);
      handlers[method] = handler;
    }
    routes.push({ template, segments: template.split('/').filter(Boolean), handlers });
  }
  return routes;
}

function matchRoute(routes: Route[], apiPath: string): { route: Route; params: Record<string, string> } | undefined {
  const parts = apiPath
    .split('/')
    .filter(Boolean)
    .map((p) => decodeURIComponent(p));
  for (const route of routes) {
    if (route.segments.length !== parts.length) continue;
    const params: Record<string, string> = {};
    if (
      route.segments.every((seg, i) =>
        seg.startsWith('{') ? ((params[seg.slice(1, -1)] = parts[i]!), true) : seg === parts[i],
      )
    ) {
      return { route, params };
    }
  }
  return undefined;
}

async function readBody(req: IncomingMessage): Promise<Record<string, RawValue>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (!text) return {};
  if ((req.headers['content-type'] ?? '').includes('application/json')) {
    const parsed: unknown = JSON.parse(text);
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
      throw fail('JSON body must be an object');
    return parsed as Record<string, RawValue>;
  }
  // A key given more than once is a list (PVE takes repeated form keys as an array parameter's items).
  const form: Record<string, RawValue> = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const seen = form[key];
    form[key] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return form;
}

const reason = (message: string) =>
  message
    .split('\n')[0]!
    .replace(/[^\t\x20-\x7e]/g, ' ')
    .slice(0, 200);

function send(res: ServerResponse, status: number, body: unknown, statusMessage?: string): void {
  const text = JSON.stringify(body);
  res.writeHead(status, statusMessage ? reason(statusMessage) : undefined, {
    'Content-Type': 'application/json;charset=UTF-8',
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(text);
}

function sendError(res: ServerResponse, err: ApiError): void {
  const message = err.message.endsWith('\n') ? err.message : `${err.message}\n`;
  send(res, err.status, { data: null, message, ...(err.errors ? { errors: err.errors } : {}) }, err.message);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function startProxmoxSimulator(options: SimulatorOptions): Promise<ProxmoxSimulator> {
  const cluster = new Cluster(options);
  // Real QEMU for VMs with a bootable disk (qemu/runtime.ts); FERRY_SIM_QEMU=off simulates every VM.
  const qemu =
    process.env.FERRY_SIM_QEMU === 'off' ? undefined : new QemuRuntime(path.join(options.stateDir, 'qemu-server'));
  if (qemu) attachQemuRuntime(cluster, qemu);
  const routes = buildRoutes(options.flavour);
  const subset = loadSubset(options.flavour);
  const unsimulated = subset.unsimulated.map((route) => {
    const [method, template] = route.split(' ') as [string, string];
    return { method, template, segments: template.split('/').filter(Boolean) };
  });

  /**
   * 501 as pve-manager answers a method it lacks; a method PVE has but the simulator does not model says
   * so, naming the schema's route (the list is in the subset file and in test/integration/proxmox/not-simulated.test.ts).
   */
  function notImplemented(method: string, apiPath: string): ApiError {
    const parts = apiPath.split('/').filter(Boolean);
    const known = unsimulated.find(
      (r) =>
        r.method === method &&
        r.segments.length === parts.length &&
        r.segments.every((seg, i) => seg.startsWith('{') || seg === decodeURIComponent(parts[i]!)),
    );
    if (!known) return new ApiError(501, `Method '${method} /api2/json${apiPath}' not implemented`);
    const version = VERSIONS[options.flavour].version;
    return new ApiError(
      501,
      `Method '${method} /api2/json${apiPath}' not implemented: ${known.method} ${known.template} is in the PVE ${version} API, but not simulated by ferry's Proxmox VE simulator`,
    );
  }
  const faults = new FaultInjector();
  faults.set(options.faults);
  const host = options.host ?? '127.0.0.1';
  const tls = await createSimulatorTls(path.join(options.stateDir, 'tls'), [host, 'localhost', '127.0.0.1']);
  setConsoleCa(cluster, readFileSync(tls.caFile, 'utf8'));
  setNodeFingerprint(cluster, new X509Certificate(tls.cert).fingerprint256);
  const requests: RequestLogEntry[] = [];
  const connections: ConnectionStats = { opened: 0, open: 0, peakOpen: 0 };
  let seq = 0;

  /** pveproxy's upload path: the storage's upload permission checked, then the multipart body received. */
  async function acceptUpload(req: IncomingMessage, method: string, apiPath: string, id: string) {
    const m = /^\/nodes\/([^/]+)\/storage\/([^/]+)\/upload$/.exec(apiPath);
    if (method !== 'POST' || !m) return undefined;
    new PermissionChecker(cluster, id).check(`/storage/${decodeURIComponent(m[2]!)}`, ['Datastore.AllocateTemplate']);
    if (new URL(req.url ?? '/', 'https://sim').searchParams.has('tmpfilename'))
      throw new ApiError(500, "'tmpfilename' query parameter is not allowed for file uploads");
    return receiveUpload(req, path.join(options.stateDir, 'var-tmp'));
  }

  async function authenticate(req: IncomingMessage): Promise<SimIdentity> {
    const header = req.headers.authorization ?? '';
    const token = /^PVEAPIToken=([^=\s]+)=(\S+)$/.exec(header);
    let identity: SimIdentity | undefined;
    let problem = 'No ticket';
    if (token) {
      const candidate = cluster.identities.get(token[1]!);
      if (
        candidate &&
        candidate.id.includes('!') &&
        candidate.secret === token[2] &&
        cluster.access.active(candidate.id)
      )
        identity = candidate;
      else problem = 'authentication failure';
    } else {
      const cookie = /(?:^|;\s*)PVEAuthCookie=([^;]+)/.exec(req.headers.cookie ?? '')?.[1];
      if (cookie) {
        const ticket = cluster.tickets.get(decodeURIComponent(cookie));
        if (!ticket || Date.now() - ticket.issuedMs > cluster.settings.ticketLifetimeMs)
          problem = 'permission denied - invalid PVE ticket';
        else if (req.method !== 'GET' && req.headers.csrfpreventiontoken !== ticket.csrf)
          problem = 'Permission denied - invalid csrf token';
        else if (cluster.access.active(ticket.userid)) identity = cluster.identities.get(ticket.userid);
        else problem = 'authentication failure';
      }
    }
    if (!identity) {
      await sleep(cluster.settings.authFailureDelayMs); // PVE slows down guessing on purpose
      throw new ApiError(401, problem);
    }
    return identity;
  }

  async function handleApi(
    req: IncomingMessage,
    res: ServerResponse,
    apiPath: string,
    query: URLSearchParams,
    entry: RequestLogEntry,
  ) {
    const method = req.method ?? 'GET';
    const fault: FaultDecision = faults.decide(method, apiPath);
    if (fault.latencyMs > 0) await sleep(fault.latencyMs);
    if (fault.outcome !== 'none') entry.fault = fault.outcome;
    if (fault.outcome === 'drop-before') {
      req.socket.destroy();
      return;
    }
    if (fault.outcome === 'error') {
      const messages: Record<number, string> = {
        500: 'internal error (fault injected by the simulator)',
        502: 'Bad Gateway',
        503: 'Service Unavailable',
      };
      throw new ApiError(fault.status!, messages[fault.status!]!);
    }
    const data = await dispatch(req, apiPath, query, fault, entry);
    if (fault.outcome === 'drop-after') {
      req.socket.destroy(); // the work is done, the answer is lost
      return;
    }
    entry.status = 200;
    send(res, 200, data instanceof WithTotal ? { data: data.data, total: data.total } : { data: data ?? null });
  }

  /** Authentication, the schema's check of the parameters, the permission check, then the handler. */
  async function dispatch(
    req: IncomingMessage,
    apiPath: string,
    query: URLSearchParams,
    fault: FaultDecision,
    entry: RequestLogEntry,
  ): Promise<unknown> {
    const method = req.method ?? 'GET';
    const world = WORLD_ROUTES.has(`${method} ${apiPath}`);
    const identity = world ? undefined : await authenticate(req);
    entry.user = identity?.id;
    // pveproxy streams a file upload to a temporary file once the caller may upload (Datastore.AllocateTemplate).
    const upload = identity ? await acceptUpload(req, method, apiPath, identity.id) : undefined;
    // an upgrade's socket belongs to the websocket
    const body = upload ? upload.params : req.headers.upgrade ? {} : await readBody(req);

    const match = matchRoute(routes, apiPath);
    const handler = match?.route.handlers[method];
    if (!match || !handler) throw notImplemented(method, apiPath);
    const schema = subset.endpoints[match.route.template]![method as 'GET']!;
    // As pve-http-server's extract_params: query parameters win over body ones. A path parameter repeated
    // in them must agree (pve-manager's HTTPServer rest_handler).
    const input: Record<string, RawValue> = { ...body, ...Object.fromEntries(query) };
    for (const [name, value] of Object.entries(match.params)) {
      if (input[name] !== undefined && String(input[name]) !== value) {
        throw new ApiError(400, 'Parameter verification failed.', {
          [name]: 'duplicate parameter (already defined in URI) with conflicting values!',
        });
      }
      input[name] = value;
    }
    // rest_handler checks the method's permissions before its parameters are verified.
    const perm = identity ? new PermissionChecker(cluster, identity.id) : undefined;
    if (perm && identity!.id.includes('!') && !schema.allowtoken)
      throw permissionDenied(`URI '${apiPath}' not available with API token, need proper ticket.\n`);
    checkApiPermissions(cluster, schema.permissions as SchemaPermissions | undefined, perm, input);
    const { params, errors } = validateParams(schema, input);
    if (Object.keys(errors).length > 0) throw new ApiError(400, 'Parameter verification failed.', errors);

    // Every method that takes skiplock (qemu-server's, pve-container's) refuses it to anyone but root@pam.
    if (params.skiplock === '1' && identity && identity.id !== 'root@pam')
      throw new ApiError(400, 'Parameter verification failed.', { skiplock: 'Only root may use this option.' });
    if (fault.outcome === 'locked') throw fail('VM is locked (backup)');
    const request: SimRequest = {
      cluster,
      method,
      path: apiPath,
      params,
      user: identity?.id ?? '',
      role: identity?.role ?? 'audit',
      failTask: fault.failTask,
      perm: perm ?? new PermissionChecker(cluster, ''),
      upload,
    };
    // The checks a `user => 'all'` method's own code makes before it acts (access/route-checks.ts).
    if (perm) ROUTE_CHECKS[`${method} ${match.route.template}`]?.(request);
    return handler(request);
  }

  /**
   * A websocket upgrade, as pveproxy's websocket_proxy: the GET runs as any API call (its handler checks
   * the vncticket or tunnel ticket and answers the `port` or `socket` to relay to), then the connection
   * is handed to the task listening there. Nobody listening: pveproxy's connect fails and it closes.
   */
  async function handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, url: URL) {
    const entry: RequestLogEntry = {
      seq: ++seq,
      method: req.method ?? 'GET',
      path: url.pathname.slice('/api2/json'.length),
      startMs: Date.now(),
    };
    requests.push(entry);
    socket.once('close', () => (entry.endMs = Date.now()));
    const fault = faults.decide(entry.method, entry.path);
    let data: unknown;
    try {
      if (req.method !== 'GET') throw new ApiError(501, `Method '${req.method} ${url.pathname}' not implemented`);
      data = await dispatch(req, entry.path, url.searchParams, fault, entry);
    } catch (err) {
      const apiError =
        err instanceof ApiError ? err : new ApiError(500, err instanceof Error ? err.message : String(err));
      entry.status = apiError.status;
      socket.end(
        `HTTP/1.1 ${apiError.status} ${reason(apiError.message)}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`,
      );
      return;
    }
    const target = data as { port?: string; socket?: string } | null;
    const address =
      target?.port !== undefined
        ? `port:${target.port}`
        : target?.socket !== undefined
          ? `socket:${target.socket}`
          : undefined;
    const peer = await acceptWebSocket(req, socket, head);
    if (!peer) return void (entry.status = 400);
    entry.status = 101;
    if (!address || !connectListener(cluster, address, peer)) peer.close();
  }

  const server: Server = createServer({ cert: tls.cert, key: tls.key, keepAlive: true }, (req, res) => {
    const url = new URL(req.url ?? '/', 'https://sim');
    const entry: RequestLogEntry = { seq: ++seq, method: req.method ?? 'GET', path: url.pathname, startMs: Date.now() };
    const finish = () => (entry.endMs = Date.now());
    res.once('close', finish);
    const onError = (err: unknown) => {
      const apiError =
        err instanceof ApiError ? err : new ApiError(500, err instanceof Error ? err.message : String(err));
      entry.status = apiError.status;
      if (!res.headersSent && req.socket && !req.socket.destroyed) sendError(res, apiError);
    };
    // pveproxy serves an upload on a connection of its own (keep_alive 0): a refused one is not read on.
    if (/\/storage\/[^/]+\/upload$/.test(url.pathname)) res.shouldKeepAlive = false;
    if (url.pathname.startsWith('/api2/json/')) {
      entry.path = url.pathname.slice('/api2/json'.length);
      requests.push(entry);
      handleApi(req, res, entry.path, url.searchParams, entry).catch(onError);
    } else if (url.pathname.startsWith('/_sim/')) {
      handleAdmin(req, res, url).catch(onError);
    } else {
      onError(new ApiError(404, 'Not Found'));
    }
  });
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? '/', 'https://sim');
    if (!url.pathname.startsWith('/api2/json/'))
      return void socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n');
    socket.on('error', () => socket.destroy());
    handleUpgrade(req, socket, head, url).catch(() => socket.destroy());
  });
  server.keepAliveTimeout = 60_000;
  server.on('connection', (socket) => {
    connections.opened++;
    connections.open++;
    connections.peakOpen = Math.max(connections.peakOpen, connections.open);
    socket.once('close', () => connections.open--);
  });

  /** `/_sim/…` admin endpoint (needs an admin identity's API token, like the API itself). */
  async function handleAdmin(req: IncomingMessage, res: ServerResponse, url: URL) {
    const identity = await authenticate(req);
    if (!new PermissionChecker(cluster, identity.id).has('/', ['Sys.Modify']))
      throw new ApiError(403, 'the simulator admin endpoint needs an admin token (Sys.Modify on /)');
    const body = (await readBody(req)) as Record<string, unknown>;
    const key = `${req.method} ${url.pathname}`;
    const vmMatch = /^\/_sim\/vms\/(\d+)$/.exec(url.pathname);
    if (key === 'GET /_sim/state') return send(res, 200, { data: dumpState() });
    if (key === 'GET /_sim/log') {
      return send(res, 200, {
        data: {
          requests,
          tasks: cluster.tasks.history.map(({ upid, node, type, id, user, startMs, endMs, exitstatus, imports }) => ({
            upid,
            node,
            type,
            id,
            user,
            startMs,
            endMs,
            exitstatus,
            imports,
          })),
          connections,
        },
      });
    }
    if (key === 'DELETE /_sim/log') {
      requests.length = 0;
      connections.opened = 0;
      connections.peakOpen = connections.open;
      return send(res, 200, { data: null });
    }
    if (key === 'PUT /_sim/faults') {
      const parsed = faultSettingsSchema.safeParse(body);
      if (!parsed.success)
        throw new ApiError(400, `invalid fault settings: ${z.prettifyError(parsed.error).replace(/\n/g, ' ')}`);
      faults.set(parsed.data);
      return send(res, 200, { data: faults.current ?? null });
    }
    if (key === 'DELETE /_sim/faults') {
      faults.set(undefined);
      return send(res, 200, { data: null });
    }
    if (key === 'PUT /_sim/settings') {
      cluster.settings = { ...cluster.settings, ...(body as Partial<SimSettings>) };
      return send(res, 200, { data: cluster.settings });
    }
    const qemuAnswer = await handleQemuAdmin(cluster, req.method ?? 'GET', url.pathname, body);
    if (qemuAnswer) return send(res, 200, qemuAnswer);
    if (vmMatch && req.method === 'PUT') {
      const vm = cluster.vms.get(Number(vmMatch[1]));
      if (!vm) throw new ApiError(404, `no VM ${vmMatch[1]}`);
      if (typeof body.guestAcpi === 'boolean') vm.guestAcpi = body.guestAcpi;
      return send(res, 200, { data: null });
    }
    throw new ApiError(404, `no admin endpoint ${key}`);
  }

  function dumpState() {
    return {
      flavour: cluster.flavour,
      nodes: cluster.nodes,
      vms: [...cluster.vms.values()].map((vm) => ({
        vmid: vm.vmid,
        node: vm.node,
        status: vm.status,
        config: vm.config,
        pending: vm.pending,
        pendingDelete: [...vm.pendingDelete.keys()],
        digest: configDigest(vm),
        guestAcpi: vm.guestAcpi,
      })),
      sdn: { config: cluster.sdn, running: cluster.sdnRunning, locked: cluster.sdnLockToken !== undefined },
      acl: cluster.acl,
      runningTasks: cluster.tasks.running().map((t) => t.upid),
      faults: faults.current ?? null,
      settings: cluster.settings,
    };
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  return {
    flavour: options.flavour,
    host,
    port,
    url: `https://${host}:${port}`,
    caFile: tls.caFile,
    cluster,
    faults,
    requests,
    connections,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await qemu?.stopAll(); // first, so tasks waiting on a guest end at once
      await cluster.tasks.idle();
      await qemu?.stopAll(); // and whatever a start task still launched
    },
  };
}

/** A token secret in PVE's format (a UUID). */
export const newTokenSecret = () => randomUUID();

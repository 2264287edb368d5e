import { request } from 'node:https';
import type { TLSSocket } from 'node:tls';
import { parsePropertyString } from '../../../src/proxmox/property-string';
import { fail, paramError } from '../api-error';
import { haConfig } from '../ha/state';
import { startTask, type RouteTable } from './types';

/**
 * `POST …/remote_migrate` (qemu-server API2/Qemu.pm remote_migrate_vm), the source side. In the request,
 * as PVE: the VM's lock, HA, the `target-endpoint` property string (apitoken, host, port 8006,
 * fingerprint), running without `online`, the storage and bridge maps (an identity storage map is
 * refused), then a real API connection to the endpoint, whose `/cluster/status` names the target node;
 * any failure there is the request's error, as PVE's LWP client dies in the API call. The `qmigrate`
 * task then asks the target for its tunnel (`POST …/mtunnel`, routes/tunnel.ts). Moving the VM through
 * the tunnel (PVE's proxmox-websocket-tunnel, NBD and storage import) is not simulated: the task stops
 * the target's tunnel task, as PVE's cleanup ends the tunnel, and fails saying so.
 */
interface Remote {
  host: string;
  port: number;
  apitoken: string;
  fingerprint?: string;
}

function parseRemote(text: string): Remote {
  let parsed: Record<string, string>;
  try {
    parsed = parsePropertyString(text);
  } catch (err) {
    throw paramError({ 'target-endpoint': `invalid format - ${(err as Error).message}` });
  }
  for (const key of Object.keys(parsed)) {
    if (!['apitoken', 'host', 'port', 'fingerprint'].includes(key))
      throw paramError({
        'target-endpoint': `invalid format - property ${key}: property is not defined in schema and the schema does not allow additional properties`,
      });
  }
  for (const key of ['apitoken', 'host']) {
    if (!parsed[key])
      throw paramError({
        'target-endpoint': `invalid format - property ${key}: property is missing and it is not optional`,
      });
  }
  if (!/^PVEAPIToken=[^=\s]+=\S+$/.test(parsed.apitoken!))
    throw paramError({
      'target-endpoint': 'invalid format - property apitoken: value does not match the regex pattern',
    });
  if (parsed.fingerprint && !/^([A-Fa-f0-9]{2}:){31}[A-Fa-f0-9]{2}$/.test(parsed.fingerprint))
    throw paramError({
      'target-endpoint': 'invalid format - property fingerprint: value does not match the regex pattern',
    });
  const port = parsed.port === undefined ? 8006 : Number(parsed.port);
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    throw paramError({ 'target-endpoint': `invalid format - property port: value must have a minimum value of 1` });
  return { host: parsed.host!, port, apitoken: parsed.apitoken!, fingerprint: parsed.fingerprint?.toUpperCase() };
}

/** parse_idmap: `1` (identity), one default ID, or `source:target` pairs. */
function parseIdmap(text: string, what: 'storage' | 'bridge', param: string): { identity: boolean } {
  const seen = new Set<string>();
  let identity = false;
  let defaults = 0;
  for (const item of text.split(/[,;\s]+/).filter(Boolean)) {
    if (item === '1') identity = true;
    else if (item.includes(':')) {
      const [source] = item.split(':');
      if (seen.has(source!))
        throw paramError({ [param]: `failed to parse ${what} map: duplicate mapping for '${source}'` });
      seen.add(source!);
    } else if (++defaults > 1)
      throw paramError({ [param]: `failed to parse ${what} map: default target ID can only be provided once` });
  }
  return { identity };
}

/**
 * One call of the remote's API with its token, holding the peer to `fingerprint` when given (PVE's
 * cached_fingerprints); without one PVE first reads the remote's certificate fingerprints, which needs
 * the certificate to be trusted: here that is Node's default CA check.
 */
function remoteCall(remote: Remote, method: string, path: string, form?: Record<string, string>): Promise<unknown> {
  const body = form ? new URLSearchParams(form).toString() : undefined;
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: remote.host,
        port: remote.port,
        method,
        path: `/api2/json${path}`,
        headers: {
          authorization: remote.apitoken,
          ...(body
            ? { 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body) }
            : {}),
        },
        rejectUnauthorized: !remote.fingerprint,
        timeout: 30_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          if (res.statusCode !== 200) return reject(new Error(`${res.statusCode} ${res.statusMessage ?? ''}`.trim()));
          try {
            resolve((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data: unknown }).data);
          } catch (err) {
            reject(err as Error);
          }
        });
      },
    );
    req.on('socket', (socket) => {
      socket.once('secureConnect', () => {
        const seen = (socket as TLSSocket).getPeerCertificate().fingerprint256?.toUpperCase();
        if (remote.fingerprint && seen !== remote.fingerprint)
          req.destroy(new Error(`fingerprint '${seen}' not verified, abort!`));
      });
    });
    req.on('timeout', () => req.destroy(new Error('got timeout')));
    req.on('error', reject);
    if (body) req.write(body);
    req.end();
  });
}

export const remoteMigrateRoutes: RouteTable = {
  'POST /nodes/{node}/qemu/{vmid}/remote_migrate': async (req) => {
    const { cluster, params } = req;
    const vm = cluster.vm(params.node!, Number(params.vmid));
    const targetVmid = params['target-vmid'] ?? String(vm.vmid);
    cluster.checkLock(vm);
    if (haConfig(cluster).resources.has(`vm:${vm.vmid}`))
      throw paramError({ vmid: 'cannot remote-migrate VM that is configured for HA' });
    const remote = parseRemote(params['target-endpoint']!);
    if (vm.status === 'running' && params.online !== '1') throw fail("can't migrate running VM without --online");
    const storageMap = parseIdmap(params['target-storage']!, 'storage', 'target-storage');
    parseIdmap(params['target-bridge']!, 'bridge', 'target-bridge');
    if (storageMap.identity) throw fail('remote migration requires explicit storage mapping!');

    const status = (await remoteCall(remote, 'GET', '/cluster/status').catch((err: Error) => {
      throw fail(`${remote.fingerprint ? '' : 'failed to get remote certificate fingerprints - '}${err.message}`);
    })) as Array<{ type?: string; local?: number; name?: string }>;
    const targetNode = status.find((e) => e.type === 'node' && e.local)?.name;
    if (!targetNode) throw fail("couldn't determine endpoint's node name");

    const online = vm.status === 'running' && params.online === '1';
    return startTask(req, { node: vm.node, type: 'qmigrate', id: String(vm.vmid) }, async (task) => {
      task.log(`starting migration of VM ${vm.vmid} to node '${targetNode}' (${remote.host})`);
      if (params.online === '1' && !online) task.warn("VM isn't running. Doing offline migration instead.");
      const storages = params['target-storage']!.split(/[,;\s]+/)
        .filter((s) => s && s !== '1')
        .map((s) => s.split(':').pop()!);
      const bridges = params['target-bridge']!.split(/[,;\s]+/)
        .filter((s) => s && s !== '1')
        .map((s) => s.split(':').pop()!);
      const tunnel = (await remoteCall(remote, 'POST', `/nodes/${targetNode}/qemu/${targetVmid}/mtunnel`, {
        storages: storages.join(','),
        bridges: bridges.join(','),
      }).catch((err: Error) => {
        throw new Error(`error - tunnel command 'mtunnel' failed - ${err.message}`);
      })) as { upid: string; socket: string };
      task.log(`remote: started migration tunnel worker '${tunnel.upid}'`);
      // The tunnel's websocket (proxmox-websocket-tunnel) and what runs through it are not simulated.
      await remoteCall(remote, 'DELETE', `/nodes/${targetNode}/tasks/${encodeURIComponent(tunnel.upid)}`).catch(
        () => undefined,
      );
      throw new Error('migration aborted: moving a VM through the websocket tunnel is not simulated');
    }).upid;
  },
};

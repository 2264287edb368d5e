import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  accessSync,
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { request } from 'undici';
import { authorizationHeader } from '../src/netbox/http';
import { REPO_ROOT } from '../src/paths';
import { freePort } from './free-port';
import { startServerProcess, type ServerProcess } from './server-process';
import { toolPath } from './tools';

export interface NetboxServer {
  url: string;
  /** NetBox's own version string (`/api/status/`). */
  version: string;
  /** A v1 token (`Token …`) and a v2 token (`Bearer nbt_…`) of the superuser `ferry`. */
  tokenV1: string;
  tokenV2: string;
  username: string;
  password: string;
  dir: string;
  /** The tail of NetBox's background worker's log (with `rqWorker`): its webhook deliveries. */
  rqWorkerOutput?: () => string;
  stop(): Promise<void>;
}

export interface NetboxOptions {
  /** Folder for the database, configuration and logs; a new temporary one when omitted (and removed at stop). */
  dir?: string;
  /** gunicorn worker processes (default 3: enough for concurrent requests on 2 cores). */
  workers?: number;
  /**
   * Also run NetBox's background worker (`netbox rqworker`, i.e. `manage.py rqworker`): NetBox sends
   * webhooks, and runs other background jobs, from it, taking them from Redis. Off by default (the jobs
   * then wait in Redis).
   */
  rqWorker?: boolean;
  /** The HTTP port to try first (a free one when omitted); one taken by then is left for another. */
  httpPort?: number;
}

const run = promisify(execFile);

/** The NetBox installation scripts/setup.d/20-netbox.sh made (`.tools/netbox`, or FERRY_NETBOX_HOME). */
export function netboxHome(): string {
  const home = process.env.FERRY_NETBOX_HOME ?? path.join(REPO_ROOT, '.tools', 'netbox');
  for (const part of ['bin/netbox-run', 'pgbin/postgres', 'pgdata-template/PG_VERSION', 'admin-password']) {
    try {
      accessSync(path.join(home, part));
    } catch {
      throw new Error(
        `NetBox is not installed (${path.join(home, part)} is missing); run \`npm run setup\` (scripts/setup.sh) first`,
      );
    }
  }
  return home;
}

function configuration(pgPort: number, redisPort: number): string {
  const secret = randomBytes(40).toString('base64url');
  const pepper = randomBytes(48).toString('base64url');
  return `# Written by ferry's lab (lab/netbox-server.ts) for one run.
ALLOWED_HOSTS = ['*']
DATABASES = {'default': {'NAME': 'netbox', 'USER': 'netbox', 'PASSWORD': '', 'HOST': '127.0.0.1', 'PORT': ${pgPort}, 'CONN_MAX_AGE': 300}}
REDIS = {
    'tasks': {'HOST': '127.0.0.1', 'PORT': ${redisPort}, 'DATABASE': 0, 'SSL': False},
    'caching': {'HOST': '127.0.0.1', 'PORT': ${redisPort}, 'DATABASE': 1, 'SSL': False},
}
SECRET_KEY = '${secret}'
API_TOKEN_PEPPERS = {1: '${pepper}'}
CENSUS_REPORTING_ENABLED = False
RELEASE_CHECK_URL = None
`;
}

/**
 * Starts a real NetBox on loopback: PostgreSQL (a copy of the database migrated at setup), Redis and
 * gunicorn serving NetBox, each on a free port; then gets a v2 token for the superuser with its
 * password and a v1 token with that. Takes a few seconds.
 */
export async function startNetbox(options: NetboxOptions = {}): Promise<NetboxServer> {
  const home = netboxHome();
  const dir = options.dir ?? mkdtempSync(path.join(tmpdir(), 'ferry-netbox-'));
  mkdirSync(path.join(dir, 'root', 'conf'), { recursive: true });
  chmodSync(dir, 0o755); // the database user must reach pgdata
  const pgdata = path.join(dir, 'pgdata');
  rmSync(pgdata, { recursive: true, force: true });
  const template = path.join(home, 'pgdata-template');
  await run('cp', ['-a', template, pgdata]); // as root, keeps the owner: PostgreSQL will not run as root
  const owner = statSync(template);
  const asOwner = process.getuid?.() === 0 ? { uid: owner.uid, gid: owner.gid } : {};

  const [pgPort, redisPort, httpPort] = [await freePort(), await freePort(), options.httpPort ?? (await freePort())];
  const started: Array<{ server: ServerProcess; stop: Parameters<ServerProcess['stop']>[0] }> = [];
  const stopAll = async () => {
    for (const { server, stop } of started.reverse()) await server.stop(stop);
    started.length = 0;
  };
  try {
    const postgres = startServerProcess(
      'postgres',
      // The real path: the database user may not reach the cache (under root's home) the link is in.
      path.join(realpathSync(path.join(home, 'pgbin')), 'postgres'),
      [
        '-D',
        pgdata,
        '-p',
        String(pgPort),
        '-k',
        '',
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        'fsync=off',
        '-c',
        'synchronous_commit=off',
        '-c',
        'full_page_writes=off',
      ],
      asOwner,
    );
    started.push({ server: postgres, stop: { signal: 'SIGINT' } }); // fast shutdown: no waiting for sessions
    const redis = startServerProcess('redis-server', toolPath('redis-server'), [
      '--bind',
      '127.0.0.1',
      '--port',
      String(redisPort),
      '--save',
      '',
      '--appendonly',
      'no',
    ]);
    started.push({ server: redis, stop: {} });
    await postgres.waitUntil(() => /ready to accept connections/.test(postgres.output()), 30_000);
    await redis.waitUntil(() => /Ready to accept connections/.test(redis.output()), 30_000);

    writeFileSync(path.join(dir, 'root', 'conf', 'configuration.py'), configuration(pgPort, redisPort), {
      mode: 0o600,
    });
    // The port was free when freePort looked; something else may take it before gunicorn binds it (a
    // simulator started beside NetBox: a chaos run's NetBox once answered with the Proxmox simulator's
    // "HTTP request to an HTTPS server"). Ready means gunicorn says it listens there and answers; if it
    // could not bind, it exits, and it starts again on another port.
    let url = '';
    let gunicorn: ServerProcess | undefined;
    for (let attempt = 1; !gunicorn; attempt++) {
      const port = attempt === 1 ? httpPort : await freePort();
      url = `http://127.0.0.1:${port}`;
      const server = startServerProcess(
        'netbox (gunicorn)',
        path.join(home, 'bin', 'netbox-run'),
        [
          'gunicorn',
          'netbox.wsgi',
          '--preload',
          '--bind',
          `127.0.0.1:${port}`,
          '--workers',
          String(options.workers ?? 3),
          '--timeout',
          '120',
          '--graceful-timeout',
          '5',
          '--no-control-socket',
        ],
        { env: { ...process.env, NETBOX_ROOT: path.join(dir, 'root') } },
      );
      // Quick shutdown: the workers go at once; the master (which preloaded NetBox) lingers for seconds
      // at exit, and holds nothing worth waiting for.
      started.push({ server, stop: { signal: 'SIGINT', graceMs: 2000 } });
      try {
        await server.waitUntil(
          async () =>
            server.output().includes(`Listening at: ${url}`) && (await httpStatus(`${url}/api/status/`)) !== undefined,
          120_000,
        );
        gunicorn = server;
      } catch (err) {
        if (attempt >= 3 || !/in use/i.test(server.output())) throw err;
      }
    }
    const rqWorker = options.rqWorker ? startRqWorker(home, dir) : undefined;
    if (rqWorker) started.push({ server: rqWorker, stop: { graceMs: 5000 } });
    await rqWorker?.waitUntil(() => /Listening on/.test(rqWorker.output()), 120_000);

    const password = readFileSync(path.join(home, 'admin-password'), 'utf8').trim();
    const tokenV2 = await provisionToken(url, 'ferry', password);
    const tokenV1 = await createV1Token(url, tokenV2);
    const status = (await api(url, tokenV2, 'GET', '/api/status/')) as { 'netbox-version': string };
    return {
      url,
      version: status['netbox-version'],
      tokenV1,
      tokenV2,
      username: 'ferry',
      password,
      dir,
      ...(rqWorker ? { rqWorkerOutput: () => rqWorker.output() } : {}),
      async stop() {
        await stopAll();
        if (!options.dir) rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await stopAll();
    if (!options.dir) rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

/** NetBox's background worker on the default queues (high, default, low), as `manage.py rqworker` runs it. */
function startRqWorker(home: string, dir: string): ServerProcess {
  return startServerProcess('netbox (rqworker)', path.join(home, 'bin', 'netbox-run'), ['netbox', 'rqworker'], {
    env: { ...process.env, NETBOX_ROOT: path.join(dir, 'root') },
  });
}

async function httpStatus(url: string): Promise<number | undefined> {
  try {
    const response = await request(url, { headersTimeout: 2000 });
    await response.body.dump();
    return response.statusCode;
  } catch {
    return undefined;
  }
}

async function api(
  url: string,
  token: string | undefined,
  method: 'GET' | 'POST',
  apiPath: string,
  body?: unknown,
): Promise<unknown> {
  const headers: Record<string, string> = { accept: 'application/json', 'content-type': 'application/json' };
  if (token) headers.authorization = authorizationHeader(token);
  const response = await request(`${url}${apiPath}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.body.text();
  if (response.statusCode >= 300)
    throw new Error(`NetBox ${method} ${apiPath}: HTTP ${response.statusCode}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as unknown;
}

/** A v2 token for a user, from the user's password (`POST /api/users/tokens/provision/`). */
export async function provisionToken(url: string, username: string, password: string): Promise<string> {
  const token = (await api(url, undefined, 'POST', '/api/users/tokens/provision/', { username, password })) as {
    key: string;
    token: string;
  };
  return `nbt_${token.key}.${token.token}`;
}

async function createV1Token(url: string, v2: string): Promise<string> {
  const users = (await api(url, v2, 'GET', '/api/users/users/?username=ferry')) as { results: Array<{ id: number }> };
  const token = (await api(url, v2, 'POST', '/api/users/tokens/', {
    version: 1,
    user: users.results[0]!.id,
    description: 'ferry lab v1',
  })) as {
    token: string;
  };
  return token.token;
}

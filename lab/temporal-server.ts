import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Connection } from '@temporalio/client';
import Long from 'long';
import { REPO_ROOT } from '../src/paths';
import { searchAttributeIndexedTypes } from '../src/temporal/search-attributes';
import { freePort } from './free-port';
import { startServerProcess, type ServerProcess } from './server-process';
import { toolPath } from './tools';

const run = promisify(execFile);

/** Debian's PostgreSQL (scripts/setup.d/50-temporal-server.sh installs it). */
const PG_BIN = process.env.FERRY_TEMPORAL_PG_BIN ?? '/usr/lib/postgresql/15/bin';
/** The dynamic config docker-compose.yml mounts: the test runs the production settings. */
export const DYNAMIC_CONFIG = path.join(REPO_ROOT, 'deploy', 'temporal', 'dynamicconfig', 'ferry.yaml');
/** As docker-compose.yml's NUM_HISTORY_SHARDS (fixed for the life of a cluster). */
export const HISTORY_SHARDS = 4;
const NAMESPACE = 'default';

/**
 * The production topology on loopback: a real Temporal server (all four services in one process, as
 * the temporalio/server image runs them) on its own PostgreSQL cluster, with SQL advanced visibility
 * and ferry's search attributes, in a temporary folder.
 */
export interface TemporalServer {
  address: string;
  namespace: string;
  /** SIGKILL the Temporal server (PostgreSQL keeps running): a crashed host. */
  kill(): Promise<void>;
  /** Starts the Temporal server again on the same ports and database; resolves once it serves. */
  restart(): Promise<void>;
  /** The server's last output, for a failure message. */
  output(): string;
  stop(): Promise<void>;
}

export async function startTemporalServer(): Promise<TemporalServer> {
  const dir = mkdtempSync(path.join(tmpdir(), 'ferry-temporal-'));
  chmodSync(dir, 0o755); // the database user must reach pgdata
  let postgres: ServerProcess | undefined;
  let server: ServerProcess | undefined;
  try {
    const pgPort = await freePort();
    postgres = await startPostgres(dir, pgPort);
    await createSchemas(pgPort);
    const ports = {
      grpc: await freePort(),
      http: await freePort(),
      membership: await Promise.all([1, 2, 3, 4].map(() => freeMembershipPort())),
      rpc: await Promise.all([1, 2, 3].map(() => freePort())),
    };
    mkdirSync(path.join(dir, 'config'));
    writeFileSync(path.join(dir, 'config', 'ferry.yaml'), serverConfig(pgPort, ports));
    const address = `127.0.0.1:${ports.grpc}`;
    const launch = async () => {
      server = startServerProcess('temporal-server', toolPath('temporal-server'), [
        '--root',
        dir,
        '--config',
        'config',
        '--env',
        'ferry',
        'start',
      ]);
      await server.waitUntil(() => serves(address), 120_000);
    };
    await launch();
    await registerNamespace(address);
    return {
      address,
      namespace: NAMESPACE,
      async kill() {
        server?.child.kill('SIGKILL');
        await server?.exited;
      },
      restart: launch,
      output: () => server?.output() ?? '',
      async stop() {
        await server?.stop({ graceMs: 5000 });
        await postgres?.stop({ signal: 'SIGINT' });
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await server?.stop({ graceMs: 2000 });
    await postgres?.stop({ signal: 'SIGINT' });
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

/**
 * A free port below 32768: the cluster_membership table keeps ports as smallint, so the ephemeral
 * ports freePort() returns make the server fail at start.
 */
async function freeMembershipPort(): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const free = await new Promise<boolean>((resolve) => {
      const probe = createServer();
      probe.once('error', () => resolve(false));
      probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
    });
    if (free) return port;
  }
  throw new Error("no free port below 32768 for the Temporal server's membership");
}

/** PostgreSQL will not run as root: as root, its files and process belong to the `postgres` user. */
function databaseUser(): { uid: number; gid: number } | Record<string, never> {
  if (process.getuid?.() !== 0) return {};
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres']).toString().trim());
  return { uid: id('-u'), gid: id('-g') };
}

async function startPostgres(dir: string, port: number): Promise<ServerProcess> {
  const pgdata = path.join(dir, 'pgdata');
  mkdirSync(pgdata, { mode: 0o700 });
  const owner = databaseUser();
  if ('uid' in owner) chownSync(pgdata, owner.uid, owner.gid);
  await run(
    path.join(PG_BIN, 'initdb'),
    ['-D', pgdata, '-U', 'temporal', '--auth=trust', '-E', 'UTF8', '--no-sync'],
    owner,
  );
  // Durability settings are off: the test kills the Temporal server, never the database.
  const postgres = startServerProcess(
    'postgres',
    path.join(PG_BIN, 'postgres'),
    [
      '-D',
      pgdata,
      '-p',
      String(port),
      '-k',
      '',
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'fsync=off',
      '-c',
      'synchronous_commit=off',
      '-c',
      'max_connections=200',
    ],
    owner,
  );
  await postgres.waitUntil(() => /ready to accept connections/.test(postgres.output()), 60_000);
  return postgres;
}

/** Temporal's own schema tool and the module's schema files, as the admin-tools image runs them. */
async function createSchemas(pgPort: number): Promise<void> {
  const tool = toolPath('temporal-sql-tool');
  const schemaRoot = path.join(path.dirname(realpathSync(toolPath('temporal-server'))), 'schema', 'postgresql', 'v12');
  for (const [db, schema] of [
    ['temporal', 'temporal'],
    ['temporal_visibility', 'visibility'],
  ] as const) {
    const base = [
      '--plugin',
      'postgres12',
      '--ep',
      '127.0.0.1',
      '-p',
      String(pgPort),
      '-u',
      'temporal',
      '--pw',
      'temporal',
      '--db',
      db,
    ];
    await run(tool, [...base, 'create-database']);
    await run(tool, [...base, 'setup-schema', '-v', '0.0']);
    await run(tool, [...base, 'update-schema', '-d', path.join(schemaRoot, schema, 'versioned')]);
  }
}

interface ServerPorts {
  grpc: number;
  http: number;
  membership: number[];
  rpc: number[];
}

/** The server's static config: the module's config/development-postgres12.yaml with free ports. */
function serverConfig(pgPort: number, ports: ServerPorts): string {
  const store = (database: string, maxConns: number) => `
      sql:
        pluginName: postgres12
        databaseName: ${database}
        connectAddr: "127.0.0.1:${pgPort}"
        connectProtocol: tcp
        user: temporal
        password: temporal
        maxConns: ${maxConns}
        maxIdleConns: ${maxConns}
        maxConnLifetime: 1h`;
  const service = (name: string, grpc: number, membership: number, extra = '') => `
  ${name}:
    rpc:
      grpcPort: ${grpc}
      membershipPort: ${membership}
      bindOnLocalHost: true${extra}`;
  return `log:
  stdout: true
  level: warn
persistence:
  defaultStore: postgres-default
  visibilityStore: postgres-visibility
  numHistoryShards: ${HISTORY_SHARDS}
  datastores:
    postgres-default:${store('temporal', 20)}
    postgres-visibility:${store('temporal_visibility', 10)}
global:
  membership:
    maxJoinDuration: 30s
    broadcastAddress: 127.0.0.1
services:${service('frontend', ports.grpc, ports.membership[0]!, `\n      httpPort: ${ports.http}`)}${service('history', ports.rpc[0]!, ports.membership[1]!)}${service(
    'matching',
    ports.rpc[1]!,
    ports.membership[2]!,
  )}${service('worker', ports.rpc[2]!, ports.membership[3]!)}
clusterMetadata:
  enableGlobalNamespace: false
  failoverVersionIncrement: 10
  masterClusterName: active
  currentClusterName: active
  clusterInformation:
    active:
      enabled: true
      initialFailoverVersion: 1
      rpcName: frontend
      rpcAddress: "127.0.0.1:${ports.grpc}"
dcRedirectionPolicy:
  policy: noop
dynamicConfigClient:
  filepath: ${JSON.stringify(DYNAMIC_CONFIG)}
  pollInterval: 10s
`;
}

/** Whether the frontend answers (GetSystemInfo). */
async function serves(address: string): Promise<boolean> {
  try {
    const connection = await Connection.connect({ address, connectTimeout: 2000 });
    try {
      await connection.workflowService.getSystemInfo({});
      return true;
    } finally {
      await connection.close();
    }
  } catch {
    return false;
  }
}

/** The namespace and ferry's search attributes, as deploy/temporal/create-namespace.sh registers them. */
async function registerNamespace(address: string): Promise<void> {
  const connection = await Connection.connect({ address });
  try {
    await connection.workflowService.registerNamespace({
      namespace: NAMESPACE,
      workflowExecutionRetentionPeriod: { seconds: Long.fromNumber(86_400) },
    });
    // The frontend learns of a new namespace on its next namespace-cache refresh (up to ~10 s).
    const deadline = Date.now() + 60_000;
    for (;;) {
      try {
        await connection.operatorService.addSearchAttributes({
          namespace: NAMESPACE,
          searchAttributes: searchAttributeIndexedTypes(),
        });
        break;
      } catch (err) {
        if (Date.now() > deadline) throw err;
        await new Promise((r) => setTimeout(r, 500));
      }
    }
    while (Date.now() < deadline) {
      const listed = await connection.operatorService
        .listSearchAttributes({ namespace: NAMESPACE })
        .catch(() => undefined);
      const custom = Object.keys(listed?.customAttributes ?? {});
      if (Object.keys(searchAttributeIndexedTypes()).every((name) => custom.includes(name))) {
        const known = await connection.workflowService.describeNamespace({ namespace: NAMESPACE }).then(
          () => true,
          () => false,
        );
        if (known) return;
      }
      await new Promise((r) => setTimeout(r, 500));
    }
    throw new Error(`namespace ${NAMESPACE} or ferry's search attributes did not appear within 60 s`);
  } finally {
    await connection.close();
  }
}

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { DYNAMIC_CONFIG, HISTORY_SHARDS } from '../../lab/temporal-server';

const ROOT = path.join(__dirname, '..', '..');
const compose = () => parse(readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8'));

/** The Temporal version scripts/setup.d/50-temporal-server.sh builds, which the production-topology test runs. */
function builtVersion(): string {
  const match = /^TEMPORAL_SERVER_VERSION=v(\d+\.\d+\.\d+)$/m.exec(
    readFileSync(path.join(ROOT, 'scripts', 'setup.d', '50-temporal-server.sh'), 'utf8'),
  );
  if (!match) throw new Error('no TEMPORAL_SERVER_VERSION in scripts/setup.d/50-temporal-server.sh');
  return match[1]!;
}

describe('docker-compose.yml runs what test/e2e/production-topology.test.ts ran', () => {
  it('pins the server and admin tools to the version built and tested', () => {
    const services = compose().services;
    const version = builtVersion();
    expect(services.temporal.image).toBe(`temporalio/server:${version}`);
    expect(services['temporal-schema'].image).toBe(`temporalio/admin-tools:${version}`);
    expect(services['temporal-namespace'].image).toBe(`temporalio/admin-tools:${version}`);
  });

  it('uses PostgreSQL with SQL visibility, the same shard count and the same dynamic config', () => {
    const temporal = compose().services.temporal;
    expect(temporal.environment.DB).toBe('postgres12');
    expect(temporal.environment.ENABLE_ES).toBeUndefined();
    expect(temporal.environment.NUM_HISTORY_SHARDS).toBe(String(HISTORY_SHARDS));
    const [from, to] = String(temporal.volumes[0]).split(':');
    expect(path.resolve(ROOT, from!)).toBe(path.dirname(DYNAMIC_CONFIG));
    expect(`${to}/${path.basename(DYNAMIC_CONFIG)}`).toBe(
      `/etc/temporal/${temporal.environment.DYNAMIC_CONFIG_FILE_PATH}`,
    );
  });
});

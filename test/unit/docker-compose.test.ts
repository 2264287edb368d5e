import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { composeProblems, isPinnedImage } from '../helpers/compose-rules';

const COMPOSE = path.join(__dirname, '..', '..', 'docker-compose.yml');
const load = () => parse(readFileSync(COMPOSE, 'utf8'));

describe('docker-compose.yml', () => {
  it('pins every image, keeps secrets out of the file, and gates start-up on health', () => {
    expect(composeProblems(load())).toEqual([]);
  });

  it('persists PostgreSQL in a named volume and builds the worker from the repo Dockerfile', () => {
    const doc = load();
    expect(doc.volumes).toHaveProperty('postgresql-data');
    expect(doc.services.postgresql.volumes).toContain('postgresql-data:/var/lib/postgresql/data');
    expect(doc.services['ferry-worker'].build).toBe('.');
    expect(readFileSync(path.join(__dirname, '..', '..', 'Dockerfile'), 'utf8')).toMatch(/^FROM node:\d+\.\d+\.\d+-/m);
  });

  it('fails when an image tag is unpinned', () => {
    for (const image of [
      'temporalio/ui',
      'temporalio/ui:latest',
      'postgres:${PG_VERSION}',
      'temporalio/server:stable',
    ]) {
      const doc = load();
      doc.services['temporal-ui'].image = image;
      expect(composeProblems(doc)).toContain(`temporal-ui: image ${image} is not pinned to a release tag`);
    }
    expect(isPinnedImage('registry.example.com:5000/temporalio/ui')).toBe(false);
    expect(isPinnedImage('registry.example.com:5000/temporalio/ui:2.49.1')).toBe(true);
  });

  it('fails when a secret is inlined', () => {
    const doc = load();
    doc.services.temporal.environment.POSTGRES_PWD = 'hunter2';
    doc.services['ferry-worker'].environment.PROXMOX_TOKEN_SECRET = '${PROXMOX_TOKEN_SECRET:-dev}';
    expect(composeProblems(doc)).toEqual([
      'temporal: secret POSTGRES_PWD is set inline; put it in the env_file',
      'ferry-worker: secret PROXMOX_TOKEN_SECRET is set inline; put it in the env_file',
    ]);
  });

  it('gives each secret-bearing env file only to the services that use it', () => {
    const doc = load();
    expect(doc.services['ferry-worker'].env_file).toEqual(['deploy/ferry.env']);
    expect(doc.services.postgresql.env_file).toEqual(['deploy/temporal.env']);
    expect(doc.services['ferry-worker'].environment).not.toHaveProperty('TEMPORAL_NAMESPACE');
    doc.services.temporal.env_file = ['deploy/temporal.env', './deploy/ferry.env'];
    doc.services['ferry-worker'].env_file = 'deploy/temporal.env';
    doc.services['temporal-ui'].env_file = [{ path: 'deploy/other.env' }];
    expect(composeProblems(doc)).toEqual([
      'temporal: gets deploy/ferry.env, whose secrets only ferry-worker use',
      'temporal-ui: env_file deploy/other.env is not one of deploy/temporal.env, deploy/ferry.env',
      'ferry-worker: gets deploy/temporal.env, whose secrets only postgresql, temporal-schema, temporal use',
    ]);
  });

  it("splits the example secrets: the database password apart from the worker's", () => {
    const keys = (file: string) =>
      readFileSync(path.join(__dirname, '..', '..', 'deploy', file), 'utf8')
        .split('\n')
        .filter((l) => /^[A-Z_]+=/.test(l))
        .map((l) => l.slice(0, l.indexOf('=')));
    expect(keys('temporal.env.example').sort()).toEqual(['POSTGRES_PASSWORD', 'POSTGRES_PWD']);
    expect(keys('ferry.env.example')).toEqual([
      'PROXMOX_TOKEN_SECRET',
      'VMWARE_PASSWORD',
      'NETBOX_TOKEN',
      'FERRY_DNS_TSIG_SECRET',
    ]);
  });

  it('fails when a dependency has no start condition or a service no health check', () => {
    const doc = load();
    doc.services['temporal-ui'].depends_on = ['temporal'];
    delete doc.services.temporal.healthcheck;
    expect(composeProblems(doc)).toEqual(
      expect.arrayContaining([
        'temporal-ui: depends_on without conditions (use service_healthy / service_completed_successfully)',
        'temporal: long-running service without a healthcheck',
      ]),
    );
  });
});

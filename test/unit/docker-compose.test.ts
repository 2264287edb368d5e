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
    for (const image of ['temporalio/ui', 'temporalio/ui:latest', 'postgres:${PG_VERSION}', 'temporalio/server:stable']) {
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

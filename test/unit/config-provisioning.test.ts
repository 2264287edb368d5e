import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError, parseConfig } from '../../src/config';
import { readSpecFile } from '../../src/cli/spec-file';

function problemsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('config: provisioning', () => {
  it('fills the defaults around a node and the approvers', () => {
    const config = parseConfig({ provisioning: { node: 'pve1', approvers: ['alice'] } }, {});
    expect(config.provisioning).toEqual({
      node: 'pve1',
      storage: 'local-lvm',
      network: 'vmbr0',
      vmidRange: { min: 10_000, max: 99_999 },
      ostype: 'l26',
      nicModel: 'virtio',
      tags: ['ferry'],
      extras: { rng0: 'source=/dev/urandom' },
      start: false,
      maxConcurrent: 10,
      approvers: ['alice'],
      heartbeatTimeout: '1m',
      retry: { initialInterval: '1s', maximumInterval: '30s' },
      pollInterval: '2s',
      teardown: { approvalFor: ['active'], netbox: 'delete', shutdownTimeout: '2m', knownHosts: true, cleanupAttempts: 5 },
    });
    expect(parseConfig({}, {}).provisioning).toBeUndefined();
  });

  it('takes every key', () => {
    const config = parseConfig(
      {
        netbox: { url: 'https://netbox.example.com', name: 'nb1' },
        provisioning: {
          node: 'pve2',
          storage: 'ceph',
          efiStorage: 'local-lvm',
          network: 'v100',
          prefix: '192.0.2.0/24',
          dnsZone: 'lab.example.com',
          vmidRange: { min: 5000, max: 5999 },
          acl: { roles: ['PVEVMUser'], groups: ['ops'] },
          teardown: { approvalFor: [], netbox: 'offline', approvalDeadline: '3d', cleanupAttempts: 3 },
        },
      },
      { NETBOX_TOKEN: 'x' },
    );
    expect(config.netbox?.name).toBe('nb1');
    expect(config.provisioning).toMatchObject({
      acl: { roles: ['PVEVMUser'], users: [], groups: ['ops'] },
      teardown: { approvalFor: [], netbox: 'offline', approvalDeadline: '3d', cleanupAttempts: 3, knownHosts: true },
    });
  });

  it('lists every problem with its key', () => {
    expect(
      problemsOf(() =>
        parseConfig(
          {
            provisioning: {
              storage: '9bad',
              prefix: '192.0.2.0',
              vmidRange: { min: 2000, max: 1000 },
              extras: { args: '-cpu host' },
              acl: { roles: ['PVEVMUser'] },
              teardown: { netbox: 'archive' },
            },
          },
          {},
        ),
      ),
    ).toEqual([
      'provisioning.node (ferry.yaml): Invalid input: expected string, received undefined',
      'provisioning.storage (ferry.yaml): a Proxmox storage id',
      'provisioning.prefix (ferry.yaml): an IPv4 prefix such as 192.0.2.0/24',
      'provisioning.vmidRange (ferry.yaml): min must not be above max',
      expect.stringMatching(/^provisioning\.extras \(ferry\.yaml\): only these options: rng0, serial0/),
      'provisioning.acl (ferry.yaml): name at least one user or group',
      'provisioning.teardown.netbox (ferry.yaml): Invalid option: expected one of "delete"|"decommissioning"|"offline"',
    ]);
    expect(problemsOf(() => parseConfig({ provisioning: { node: 'pve1' } }, {}))).toEqual([
      'provisioning.approvers (ferry.yaml): teardown.approvalFor (active) needs approvers (or set teardown.approvalFor: [])',
    ]);
  });
});

describe('ferry provision --spec FILE', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ferry-spec-'));
  it('reads a YAML spec as the workflow will validate it', () => {
    const file = path.join(dir, 'web1.yaml');
    writeFileSync(file, 'name: web1\nnode: pve1\ncores: 2\nmemoryMiB: 2048\ndisks:\n  - { slot: scsi0, storage: local-lvm, sizeGiB: 20 }\n');
    expect(readSpecFile(file)).toMatchObject({ name: 'web1', disks: [{ slot: 'scsi0', options: {} }], nics: [] });
  });
  it('refuses a bad one with every problem, naming the file', () => {
    const file = path.join(dir, 'bad.yaml');
    writeFileSync(file, 'name: web1\nnode: pve1\ncores: 0\n');
    expect(() => readSpecFile(file)).toThrow(
      `${file} is not a valid VM spec:\n  - ${file}: cores: at least 1\n  - ${file}: memoryMiB: missing`,
    );
    writeFileSync(file, 'name: [');
    expect(() => readSpecFile(file)).toThrow(new RegExp(`^${file}: `));
  });
});

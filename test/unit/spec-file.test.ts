import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readSpecFile } from '../../cli/spec-file';

describe('ferry provision --spec FILE', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ferry-spec-'));
  it('reads a YAML spec as the workflow will validate it', () => {
    const file = path.join(dir, 'web1.yaml');
    writeFileSync(
      file,
      'name: web1\nnode: pve1\ncores: 2\nmemoryMiB: 2048\ndisks:\n  - { slot: scsi0, storage: local-lvm, sizeGiB: 20 }\n',
    );
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

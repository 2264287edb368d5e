import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { makeLabCertificates } from '../../../lab/vcsim/tls';
import { startVcsim, type Vcsim } from '../../../lab/vcsim/vcsim-process';
import { parseConfig } from '../../../src/config';
import { VsphereClient } from '../../../src/vsphere';

/**
 * The lab's vcsim gets its password from a file, not its command line: `ps` shows every local user a
 * process's arguments (/proc/PID/cmdline), and a password there is everyone's.
 */
describe('vcsim credentials', () => {
  let dir: string;
  let vcsim: Vcsim;
  let caFile: string;
  const password = `lab-${Math.random().toString(36).slice(2)}`;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'ferry-vcsim-cred-'));
    const certs = await makeLabCertificates(dir);
    caFile = certs.caFile;
    vcsim = await startVcsim({ certs, username: 'ferry', password });
  });
  afterAll(async () => {
    await vcsim?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const client = (pw: string) =>
    new VsphereClient(
      parseConfig(
        { vsphere: { host: vcsim.host, port: vcsim.port, user: 'ferry', caFile } },
        { VMWARE_PASSWORD: pw },
        'test',
      ).vsphere!,
    );

  it('keeps the password off the command line, and still checks it', async () => {
    const cmdline = readFileSync(`/proc/${vcsim.process.pid}/cmdline`, 'utf8').split('\0');
    expect(cmdline.join(' ')).not.toContain(password);
    expect(cmdline).toContain('-password');

    const right = client(password);
    await expect(right.login()).resolves.toBeUndefined();
    await right.close();
    const wrong = client('not-the-password');
    await expect(wrong.login()).rejects.toMatchObject({ faultType: 'InvalidLogin' });
    await wrong.close();
  });
});

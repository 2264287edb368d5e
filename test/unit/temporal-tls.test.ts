import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseConfig } from '../../src/config';
import { temporalTls } from '../../src/temporal/connection';

describe('Temporal TLS files', () => {
  it('reads the configured files', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ferry-tls-'));
    writeFileSync(path.join(dir, 'ca.pem'), 'CA');
    const tls = temporalTls(
      parseConfig({ temporal: { tls: { serverCaFile: path.join(dir, 'ca.pem') } } }, {}).temporal,
    );
    expect(tls && tls.serverRootCACertificate?.toString()).toBe('CA');
  });

  it('names the key and the path of a file it cannot read', () => {
    const missing = path.join(tmpdir(), 'ferry-no-such-dir', 'client.pem');
    const config = parseConfig({ temporal: { tls: { clientCertFile: missing, clientKeyFile: missing } } }, {});
    expect(() => temporalTls(config.temporal)).toThrow(
      `temporal.tls.clientCertFile (${missing}): cannot read it: no such file`,
    );
  });
});

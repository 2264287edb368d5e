import path from 'node:path';
import { loadConfig } from '../../src/config';

describe('ferry.example.yaml', () => {
  it('is a valid configuration once the secrets are in the environment', () => {
    const config = loadConfig(path.join(__dirname, '..', '..', 'ferry.example.yaml'), {
      PROXMOX_TOKEN_SECRET: 'x',
      VMWARE_PASSWORD: 'x',
      NETBOX_TOKEN: 'x',
      FERRY_DNS_TSIG_SECRET: 'eA==',
    });
    expect(config.proxmox?.host).toBe('pve1.example.com');
    expect(config.dns?.tsigAlgorithm).toBe('hmac-sha256');
    expect(config.change.handDrift.fields['nic.link_down']).toBe('netbox');
  });
});

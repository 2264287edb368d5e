import { forwardedEndpoints } from '../../lab/guest-endpoints';

describe('the lab’s guest endpoint resolver', () => {
  const forwards = [{ guestAddress: '198.51.100.21', guestPort: 22, hostAddress: '127.0.0.1', hostPort: 40022 }];
  const resolve = forwardedEndpoints(async (vmid) => (vmid === 20060 ? forwards : []));

  it('maps a guest address:port to the loopback port forwarded to exactly it', async () => {
    await expect(resolve({ vmid: 20060, address: '198.51.100.21', port: 22 })).resolves.toEqual({
      host: '127.0.0.1',
      port: 40022,
    });
  });

  it('refuses, naming what is forwarded, rather than guess', async () => {
    await expect(resolve({ vmid: 20060, address: '198.51.100.21', port: 80 })).rejects.toThrow(
      'the lab forwards no loopback port to 198.51.100.21:80 of VM 20060 (forwarded: 198.51.100.21:22)',
    );
    await expect(resolve({ vmid: 20061, address: '198.51.100.23', port: 22 })).rejects.toThrow(/\(forwarded: none\)/);
  });
});

import { PrefixCache } from '../../activities/provisioning/prefix-cache';
import type { NetboxClient } from '../../src/netbox/client';

/** A stand-in for the one NetBox read the cache makes: counts lookups, answers a new id each time. */
function countingClient(): { client: NetboxClient; lookups: () => number } {
  let n = 0;
  const client = { getPrefix: async (cidr: string) => ({ id: ++n, prefix: cidr }) } as unknown as NetboxClient;
  return { client, lookups: () => n };
}

describe('PrefixCache', () => {
  it('looks a prefix up once a minute, per CIDR, and again after forget()', async () => {
    let now = 0;
    const cache = new PrefixCache(() => now);
    const { client, lookups } = countingClient();
    expect(await cache.get(client, '192.0.2.0/24')).toMatchObject({ id: 1 });
    now = 59_999;
    expect(await cache.get(client, '192.0.2.0/24')).toMatchObject({ id: 1 });
    expect(await cache.get(client, '198.51.100.0/24')).toMatchObject({ id: 2, prefix: '198.51.100.0/24' });
    now = 60_000;
    expect(await cache.get(client, '192.0.2.0/24')).toMatchObject({ id: 3 });
    cache.forget('192.0.2.0/24');
    expect(await cache.get(client, '192.0.2.0/24')).toMatchObject({ id: 4 });
    expect(lookups()).toBe(4);
  });

  it('keeps nothing from a failed lookup', async () => {
    const cache = new PrefixCache(() => 0);
    let fail = true;
    const client = {
      getPrefix: async (cidr: string) =>
        fail ? Promise.reject(new Error('NetBox has no prefix')) : { id: 7, prefix: cidr },
    } as unknown as NetboxClient;
    await expect(cache.get(client, '192.0.2.0/24')).rejects.toThrow('NetBox has no prefix');
    fail = false;
    expect(await cache.get(client, '192.0.2.0/24')).toMatchObject({ id: 7 });
  });
});

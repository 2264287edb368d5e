import type { NetboxClient } from '../../src/netbox/client';

type Prefix = Awaited<ReturnType<NetboxClient['getPrefix']>>;

/** How long a prefix looked up by CIDR is reused: long enough for a batch, short enough to notice a change. */
const PREFIX_TTL_MS = 60_000;

/**
 * NetBox prefixes by CIDR, looked up once a minute instead of once per VM (every provision of a batch
 * allocates from the same prefix). Only the id and CIDR are used: the address itself is picked by
 * NetBox under its own lock. A failed allocation forgets the entry, so a prefix that was replaced is
 * looked up again by the retry.
 */
export class PrefixCache {
  private readonly entries = new Map<string, { prefix: Prefix; at: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  async get(client: NetboxClient, cidr: string): Promise<Prefix> {
    const hit = this.entries.get(cidr);
    if (hit && this.now() - hit.at < PREFIX_TTL_MS) return hit.prefix;
    const prefix = await client.getPrefix(cidr);
    this.entries.set(cidr, { prefix, at: this.now() });
    return prefix;
  }

  forget(cidr: string): void {
    this.entries.delete(cidr);
  }
}

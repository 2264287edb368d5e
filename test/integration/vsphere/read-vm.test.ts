import type { VsphereClient } from '../../../src/vsphere';
import { startTestVcsim, type TestVcsim } from '../../helpers/vcsim';

/** A migration reads its VM alone, and must see it exactly as the discovery that planned it did. */
describe('one VM read with its networks (readVmWithNetworks) against vcsim', () => {
  jest.setTimeout(120_000);
  let sim: TestVcsim;
  let client: VsphereClient;

  beforeAll(async () => {
    sim = await startTestVcsim();
    client = sim.client();
  });

  afterAll(() => sim?.stop());

  it('gives every lab VM the record and portgroups discovery gives it, in a few round trips whatever the inventory size', async () => {
    const { inventory } = await client.discover();
    expect(inventory.vms.length).toBeGreaterThan(10);
    for (const vm of inventory.vms) {
      const before = client.stats.roundTrips;
      const read = await client.readVmWithNetworks(vm.moid);
      expect(client.stats.roundTrips - before).toBeLessThanOrEqual(2);
      expect(read.vm).toEqual(vm);
      const keys = new Set(vm.nics.flatMap((n) => (n.backing.kind === 'dvportgroup' ? [n.backing.portgroupKey] : [])));
      const byKey = (a: { key: string }, b: { key: string }) => a.key.localeCompare(b.key);
      expect(read.portgroups.filter((pg) => keys.has(pg.key)).sort(byKey)).toEqual(
        inventory.portgroups.filter((pg) => keys.has(pg.key)).sort(byKey),
      );
      expect(read.portgroups.length).toBe(new Set(read.portgroups.map((pg) => pg.key)).size);
    }
  });

  it('says which VM is not there', async () => {
    await expect(client.readVmWithNetworks('vm-404')).rejects.toMatchObject({
      message: 'VM vm-404 was not found in vCenter',
      category: 'not-found',
    });
  });
});

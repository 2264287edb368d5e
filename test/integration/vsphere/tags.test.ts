import { ESTATE } from '../../../lab/vcsim/estate';
import { startTestVcsim, type TestVcsim } from '../../helpers/vcsim';

describe('vSphere tags (Automation API) on vcsim', () => {
  jest.setTimeout(120_000);
  let sim: TestVcsim;
  beforeAll(async () => {
    sim = await startTestVcsim();
  });
  afterAll(() => sim?.stop());

  it('finds the VMs carrying a tag, by name or by category/name', async () => {
    const client = sim.client();
    const { inventory } = await client.discover();
    const moids = (names: readonly string[]) => names.map((n) => inventory.vms.find((v) => v.name === n)!.moid).sort();
    expect((await client.vmsTagged(ESTATE.tags.tag)).sort()).toEqual(moids(ESTATE.tags.vms));
    expect((await client.vmsTagged(`${ESTATE.tags.category}/${ESTATE.tags.tag}`)).sort()).toEqual(
      moids(ESTATE.tags.vms),
    );
  });

  it('says so when the tag does not exist, rather than selecting nothing', async () => {
    await expect(sim.client().vmsTagged('no-such-tag')).rejects.toMatchObject({
      message: 'vCenter has no tag "no-such-tag"',
      category: 'invalid',
    });
    await expect(sim.client().vmsTagged(`other/${ESTATE.tags.tag}`)).rejects.toThrow(
      'vCenter has no tag "other/lab-wave"',
    );
  });

  it('refuses wrong credentials as a permission error', async () => {
    await expect(sim.client({ password: 'wrong' }).vmsTagged(ESTATE.tags.tag)).rejects.toMatchObject({
      category: 'permission',
    });
  });
});

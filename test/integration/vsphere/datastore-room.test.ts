import { ESTATE } from '../../../lab/vcsim/estate';
import { startTestVcsim, type TestVcsim } from '../../helpers/vcsim';

/**
 * vcsim does not look at the folder behind a datastore: its RefreshDatastore (govmomi
 * simulator/datastore.go) sets capacity = 1 TB × the hosts mounting it, and free space is that less
 * what the VMs there are provisioned. So this checks that ferry reads vCenter's figures, which move with
 * the disks placed there, not with the folder's file system.
 */
describe("the migration datastore's room as vCenter reports it", () => {
  jest.setTimeout(60_000);
  let sim: TestVcsim;
  beforeAll(async () => {
    sim = await startTestVcsim();
  });
  afterAll(() => sim?.stop());

  it("reads summary.capacity and summary.freeSpace of the datastores a VM's host mounts", async () => {
    const client = sim.client();
    const vm = (await client.discover()).inventory.vms.find((v) => v.name === 'mig-legacy01')!;
    const { hostDatastores } = await client.readVmDetail(vm.moid);
    const nfs = hostDatastores.find((d) => d.name === ESTATE.migrationDatastore);
    const TiB = 1024 ** 4;
    expect(nfs!.capacityBytes! % TiB).toBe(0);
    expect(nfs!.capacityBytes!).toBeGreaterThan(0);
    // The estate's VMs take room: free is below capacity, by at least mig-web01's 70 GB of disks.
    expect(nfs!.freeBytes!).toBeLessThan(nfs!.capacityBytes! - 70 * 1e9);
    expect(nfs!.freeBytes!).toBeGreaterThan(0);
  });
});

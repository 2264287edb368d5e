import { ProxmoxParameterError, type ProxmoxClient } from '../../../src/proxmox';
import { upidOrNullSchema } from '../../../src/proxmox/schemas';
import { SAMPLE_ISO } from '../../../lab/proxmox-sim/sample-cluster';
import { failure, FLAVOURS, startSim, type SimFixture } from '../../helpers/proxmox';

/**
 * Drive values qemu-server refuses in the API call itself (400, the parameter named), before any task
 * starts: the client sees a parameter error, which is never retried.
 */
describe.each(FLAVOURS)('drive checks before the worker, PVE %s', (flavour) => {
  let fx: SimFixture;
  let pve: ProxmoxClient;
  const vmid = 500;

  beforeAll(async () => {
    fx = await startSim(flavour);
    pve = fx.client();
    await pve.vms.create({ node: 'pve1', vmid, name: 'checks' });
  });
  afterAll(() => fx.stop());

  const iso = `local:iso/${SAMPLE_ISO}`;
  it.each([
    [
      'import-from without <storage>:0',
      { scsi1: 'local-lvm:4,import-from=nfs-migration:import/x.vmdk' },
      { scsi1: "'import-from' requires special syntax - use <storage ID>:0,import-from=<source>" },
    ],
    [
      'efidisk0 import without efitype',
      { efidisk0: 'local-lvm:0,import-from=nfs-migration:import/efi.raw,pre-enrolled-keys=1' },
      { efidisk0: "need to specify 'efitype' when using 'import-from'" },
    ],
    [
      'efidisk0 import without pre-enrolled-keys',
      { efidisk0: 'local-lvm:0,import-from=nfs-migration:import/efi.raw,efitype=4m' },
      { efidisk0: "need to specify 'pre-enrolled-keys' when using 'import-from'" },
    ],
    ['an ISO attached as a disk', { scsi1: iso }, { scsi1: "explicit 'media=cdrom' is required for iso images" }],
    [
      'an ISO as import source',
      { scsi1: `local-lvm:0,import-from=${iso}` },
      { scsi1: `${iso} has wrong type 'iso' - needs to be 'images' or 'import'` },
    ],
    [
      'an import image attached directly',
      { scsi1: 'nfs-migration:import/app01.vmdk' },
      { scsi1: "content type needs to be 'images' or 'iso'" },
    ],
  ])('%s: 400 on create and on config writes, no task started', async (_what, drive, errors) => {
    const tasksBefore = fx.sim.cluster.tasks.history.length;
    for (const [method, path, params] of [
      ['POST', '/nodes/pve1/qemu', { vmid: 501, ...drive }],
      ['POST', `/nodes/pve1/qemu/${vmid}/config`, drive],
      ['PUT', `/nodes/pve1/qemu/${vmid}/config`, drive],
    ] as const) {
      const err = await failure(() => pve.transport.call(method, path, params, upidOrNullSchema));
      expect(err).toBeInstanceOf(ProxmoxParameterError);
      expect(err.errors).toEqual(errors);
      expect(err.retryable).toBe(false);
    }
    expect(fx.sim.cluster.tasks.history.length).toBe(tasksBefore);
    expect(fx.sim.cluster.vms.has(501)).toBe(false);
  });

  it('the client API reports them as parameter errors too', async () => {
    const err = await failure(() => pve.disks.import('pve1', vmid, 'scsi2', { storage: 'local-lvm', source: iso }));
    expect(err).toBeInstanceOf(ProxmoxParameterError);
    expect(err.retryable).toBe(false);
  });

  it('accepts what PVE accepts: an ISO as CD-ROM, an EFI disk import with both options', async () => {
    await pve.transport.call(
      'PUT',
      `/nodes/pve1/qemu/${vmid}/config`,
      { ide2: `${iso},media=cdrom` },
      upidOrNullSchema,
    );
    expect((await pve.config.get('pve1', vmid)).values.ide2).toBe(`${iso},media=cdrom`);
    // Passes the checks; the missing source is found by the worker, as in PVE.
    const upid = await pve.transport.call(
      'POST',
      `/nodes/pve1/qemu/${vmid}/config`,
      { efidisk0: 'local-lvm:0,import-from=nfs-migration:import/efi.raw,efitype=4m,pre-enrolled-keys=1' },
      upidOrNullSchema,
    );
    expect(upid).toMatch(/^UPID:/);
    const err = await failure(() => pve.waitForTask(upid!));
    expect(err.exitstatus).toMatch(/does not exist/);
  });
});

import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { FLAVOURS, startSim, type SimFixture } from '../../helpers/proxmox';

const run = promisify(execFile);

/**
 * Who may remove what from a VM, as qemu-server decides it: only root@pam attaches an absolute path
 * (check_storage_access), but removing such a drive needs only VM.Config.Disk and destroying the VM only
 * VM.Allocate (destroy_vm frees the VM's own volumes, never a path); skiplock is root@pam's alone on
 * every method that takes it.
 */
describe.each(FLAVOURS)('removing a VM and its path-attached disk with a token, PVE %s', (flavour) => {
  let fx: SimFixture;
  let image: string;

  beforeAll(async () => {
    fx = await startSim(flavour);
    image = path.join(fx.stateDir, 'source.qcow2');
    await run('qemu-img', ['create', '-q', '-f', 'qcow2', image, '16M']);
  });
  afterAll(() => fx.stop());

  it('a token may not attach a path or pass skiplock, but may detach the path and destroy the VM; the file stays', async () => {
    const token = fx.client();
    const root = fx.client({ auth: { kind: 'ticket', username: 'root@pam', password: fx.credentials.rootPassword } });
    for (const vmid of [820, 821]) {
      await token.vms.create({ node: 'pve1', vmid, name: `path${vmid}` });
      const byToken = await fx.raw('PUT', `/api2/json/nodes/pve1/qemu/${vmid}/config`, { form: { scsi0: image } });
      expect(byToken.body.message).toContain('Only root can pass arbitrary filesystem paths.');
      await root.config.update('pve1', vmid, { set: { scsi0: image } });
      expect(String((await token.config.get('pve1', vmid)).values.scsi0)).toContain(image);
    }

    for (const [method, apiPath] of [
      ['DELETE', '/nodes/pve1/qemu/820?skiplock=1'],
      ['POST', '/nodes/pve1/qemu/820/status/stop?skiplock=1'],
      ['PUT', '/nodes/pve1/qemu/820/config?skiplock=1&delete=scsi0'],
    ] as const) {
      const refused = await fx.raw(method, `/api2/json${apiPath}`);
      expect([method, apiPath, refused.status, refused.body.errors]).toEqual([
        method,
        apiPath,
        400,
        { skiplock: 'Only root may use this option.' },
      ]);
    }
    // Detach, then destroy; or destroy with the path still attached: both are the token's to do.
    await token.config.update('pve1', 820, { delete: ['scsi0'] });
    expect((await token.config.get('pve1', 820)).values.scsi0).toBeUndefined();
    for (const vmid of [820, 821]) expect((await token.vms.delete('pve1', vmid)).deleted).toBe(true);
    expect((await token.vms.list()).filter((vm) => vm.vmid === 820 || vm.vmid === 821)).toEqual([]);
    expect(existsSync(image)).toBe(true);
  });
});

import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { WorkflowFailedError } from '@temporalio/client';
import { guestImage } from '../../../lab/guest-image/paths';
import { LAB_NETBOX } from '../../../lab/netbox-seed';
import { provisionWorkflowId, type ProvisionResult } from '../../../src/domain/provisioning';
import type { provisionVm } from '../../../workflows/provision-vm';
import { useProvisionLab } from '../../helpers/provision-lab';
import { readBanner } from '../../helpers/tcp-banner';
import { until } from '../../helpers/wait';

/**
 * Provisioning verifies the guest (issue 12 item 7): a spec whose disk is made from the lab guest image
 * (import-from) and started is followed by the same agent check as migration's verify-guest, and its
 * NetBox address must be on the guest. The address reaches the guest on a cloud-init drive
 * (`scsi30: <storage>:cloudinit` + `ipconfig0`), which the simulator builds as qemu-server does.
 */
describe('provisioning a VM that boots the lab guest image', () => {
  jest.setTimeout(400_000);
  // The provision without an address fails once guestNetworkTimeout (default 1m) after its agent has
  // passed; the lab guest (image 5) sets its address a second or two after its agent starts, so 15 s
  // judges the same sooner.
  const suite = useProvisionLab('realguest', { provisioning: { guestNetworkTimeout: '15s' } });

  type Handle = Awaited<ReturnType<typeof start>>;
  let withCloudInit: { record: { id: number; name: string }; handle: Handle };
  let withoutCloudInit: { record: { id: number; name: string }; handle: Handle };

  // Both provisions start at once, so the two TCG boots overlap instead of adding up.
  beforeAll(async () => {
    const importDir = path.join(suite.lab.stateDir, 'proxmox', 'storage', 'local', 'pve1', 'import');
    mkdirSync(importDir, { recursive: true });
    execFileSync('cp', ['--sparse=always', guestImage().raw('mac'), path.join(importDir, 'ferry-guest.raw')]);
    const [a, b] = [await suite.lab.plannedVm({}), await suite.lab.plannedVm({})];
    withCloudInit = { record: a, handle: await start(a, true) };
    withoutCloudInit = { record: b, handle: await start(b, false) };
  });

  const specFor = (record: { id: number; name: string }, cloudInit: boolean) => ({
    name: record.name,
    netboxId: record.id,
    node: 'pve1',
    cores: 1,
    memoryMiB: 512,
    disks: [{ slot: 'scsi0', storage: 'local-lvm', sizeGiB: 1, importFrom: 'local:import/ferry-guest.raw' }],
    nics: [{ slot: 'net0', network: 'vmbr0' }],
    prefix: LAB_NETBOX.prefix,
    cloudInit,
    // The lab image's boot loader (systemd-boot) is unsigned.
    secureBoot: false,
    start: true,
  });
  const start = (record: { id: number; name: string }, cloudInit: boolean) =>
    suite.temporal.client.workflow.start<typeof provisionVm>('provisionVm', {
      taskQueue: suite.workers.taskQueue,
      workflowId: `${suite.workers.taskQueue}-${provisionWorkflowId({ netboxId: record.id })}`,
      args: [{ spec: specFor(record, cloudInit) }],
    });

  it('the guest boots from the imported image, its agent answers and its NetBox address (from the cloud-init drive) is on the NIC with its MAC', async () => {
    const result: ProvisionResult = await withCloudInit.handle.result();
    expect(result.outcome).toBe('provisioned');
    const address = result.address!.split('/')[0]!;
    expect(
      result.steps
        .filter((s) => ['disk', 'cloud-init', 'start', 'verify-guest'].includes(s.step))
        .map((s) => [s.step, s.outcome]),
    ).toEqual([
      ['disk', 'created'],
      ['cloud-init', 'created'],
      ['start', 'created'],
      ['verify-guest', 'unchanged'],
    ]);
    expect(result.verification).toMatchObject({ state: 'verified', expectedAddress: { address, source: 'config' } });
    expect(result.verification!.checks.map((c) => [c.check, c.result])).toEqual([
      ['qemu-running', 'passed'],
      ['agent-ping', 'passed'],
      ['macs', 'passed'],
      ['address', 'passed'],
    ]);
    const mac = result.macs.net0!.toLowerCase();
    expect(result.verification!.interfaces).toEqual(
      expect.arrayContaining([expect.objectContaining({ mac, addresses: expect.arrayContaining([result.address]) })]),
    );
    process.stdout.write(`provisioned guest: boot to agent ${result.verification!.bootToAgentSeconds} s (TCG)\n`);
    const { values } = await suite.lab.deps.proxmox!.config.get('pve1', result.vmid!);
    expect(values.ipconfig0).toBe(`ip=${result.address}`);
    expect(values.scsi30).toMatch(/vm-\d+-cloudinit.*media=cdrom/);
    // The simulator built the NoCloud ISO at start and gave it to QEMU; the forwards follow the
    // cloud-init address (the image carries no settings of its own), and the probe answers there with
    // the hostname cloud-init set (the only boot of a cloud-init guest: proxmox/cloud-init.test has none).
    const qemu = await suite.lab.admin.qemu(result.vmid!);
    if (!qemu.running) throw new Error('the admin API does not list the running QEMU');
    expect(
      qemu.commandLine.some((a) =>
        new RegExp(`vm-${result.vmid}-cloudinit\\.(raw|qcow2),if=none,id=drive-scsi30,media=cdrom`).test(a),
      ),
    ).toBe(true);
    const probe = guestImage().manifest.probe;
    expect(qemu.forwards.map((f) => [f.nic, f.guestAddress, f.guestPort])).toEqual([
      ['net0', address, probe.port],
      ['net0', address, 22],
    ]);
    expect(await until('the probe banner', () => readBanner(qemu.forwards[0]!.hostPort), 30_000)).toBe(
      `${probe.banner} ${withCloudInit.record.name}`,
    );
  });

  it("without the cloud-init drive the guest has no address: the provision fails verification, naming the address and the guest's interfaces", async () => {
    const { record, handle } = withoutCloudInit;
    const failure = await handle.result().then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    const cause = (failure as WorkflowFailedError).cause as { type?: string; nonRetryable?: boolean; message: string };
    expect(cause).toMatchObject({ type: 'GuestNotVerified', nonRetryable: true });
    expect(cause.message).toMatch(
      new RegExp(
        `^${record.name} \\(VM \\d+\\) is not verified: address: \\d+\\.\\d+\\.\\d+\\.\\d+ \\(config\\) is on no interface .*; the guest's interfaces: .*\\S+ [0-9a-f:]{17} \\(no address\\)`,
      ),
    );
  });
});

import { WorkflowFailedError } from '@temporalio/client';
import { apiWrites } from '../../../lab/proxmox-sim/admin-client';
import { SAMPLE_ISO } from '../../../lab/proxmox-sim/sample-cluster';
import { changed, provisionWorkflowId, type ProvisionResult } from '../../../src/domain/provisioning';
import { ipAddressSchema, vmInterfaceSchema } from '../../../src/netbox/schemas';
import { parseNic } from '../../../src/proxmox/nics';
import { provisionStatusQuery } from '../../../src/domain/messages';
import type { provisionPlanned } from '../../../workflows/provision-planned';
import type { provisionVm } from '../../../workflows/provision-vm';
import { dig } from '../../helpers/bind-tools';
import { runWorkers, useProvisionLab } from '../../helpers/provision-lab';
import { startNetboxProxy } from '../../helpers/netbox-proxy';
import { parseConfig } from '../../../src/config';
import { createDependencies } from '../../../worker/dependencies';

describe('provisionVm against the Proxmox simulator, a real NetBox and BIND', () => {
  jest.setTimeout(180_000);
  const suite = useProvisionLab('prov');

  const provision = (netboxId: number) =>
    suite.temporal.client.workflow.execute<typeof provisionVm>('provisionVm', {
      taskQueue: suite.workers.taskQueue,
      workflowId: `${suite.workers.taskQueue}-${provisionWorkflowId({ netboxId })}`,
      args: [{ netboxId }],
      workflowIdConflictPolicy: 'USE_EXISTING',
    });

  it('builds a planned record into a staged VM with its interface, MAC, address, A and PTR; a rerun writes nothing', async () => {
    const { id, name } = await suite.lab.plannedVm({ vcpus: 2, memory: 2048, disk: 20480, fields: { ferry_vlan: 20 } });
    const result: ProvisionResult = await provision(id);
    expect(result.outcome).toBe('provisioned');
    const vmid = result.vmid!;
    expect(vmid).toBeGreaterThanOrEqual(9100);

    // NetBox: staged, with the VMID written back, one interface with the VM's MAC, one address.
    const { value: record } = await suite.lab.nb.getVirtualMachine(id);
    expect(record.status.value).toBe('staged');
    expect(record.custom_fields.ferry_vmid).toBe(vmid);

    // Proxmox: the VM as the spec says.
    const pve = suite.lab.deps.proxmox!;
    const config = (await pve.config.get('pve1', vmid)).values;
    expect(config).toMatchObject({
      name,
      machine: 'q35',
      bios: 'ovmf',
      scsihw: 'virtio-scsi-single',
      agent: 'enabled=1',
      cores: '2',
      sockets: '1',
      memory: '2048',
      ostype: 'l26',
      ide2: `local:iso/${SAMPLE_ISO},media=cdrom`,
      boot: 'order=scsi0;ide2;net0',
      rng0: 'source=/dev/urandom',
    });
    expect(config.tags!.split(/[;,]/).sort()).toEqual(['ferry']);
    expect(config.efidisk0).toMatch(/^local-lvm:vm-\d+-disk-\d+,efitype=4m,pre-enrolled-keys=1,size=528K$/);
    expect(config.scsi0).toMatch(/^local-lvm:vm-\d+-disk-\d+,discard=on,iothread=1,size=20G$/);
    const nic = parseNic(config.net0!);
    expect(nic).toMatchObject({ model: 'virtio', options: { bridge: 'vmbr0', tag: '20' } });
    expect(
      Object.keys(config)
        .filter((k) => /^(net|scsi|virtio|sata|unused)\d+$/.test(k))
        .sort(),
    ).toEqual(['net0', 'scsi0']);
    expect((await pve.acl.list()).filter((e) => e.path === `/vms/${vmid}`)).toEqual([
      { path: `/vms/${vmid}`, type: 'group', ugid: 'admins', roleid: 'PVEVMUser', propagate: true },
    ]);

    const interfaces = await suite.lab.nb.listInterfaces(id);
    expect(interfaces.map((i) => i.name)).toEqual(['net0']);
    const iface = vmInterfaceSchema.parse(
      (
        await suite.lab.nb.http.request('GET', `api/virtualization/interfaces/${interfaces[0]!.id}/`, {
          schema: vmInterfaceSchema,
        })
      ).data,
    );
    expect(iface.primary_mac_address?.mac_address.toUpperCase()).toBe(nic.macaddr);
    expect(result.macs).toEqual({ net0: nic.macaddr });
    const addresses = await suite.lab.nb.interfaceAddresses(iface.id);
    expect(addresses).toHaveLength(1);
    const address = addresses[0]!.address;
    expect(address).toMatch(/^192\.0\.2\.\d+\/24$/);
    expect(result.address).toBe(address);
    expect(record.primary_ip4?.address).toBe(address);

    // DNS: A and PTR, asked of BIND with dig.
    const host = address.split('/')[0]!;
    expect(await dig(suite.lab.bind, `${name}.lab.ferry.test`, 'A')).toEqual([host]);
    expect(await dig(suite.lab.bind, `${host.split('.').reverse().join('.')}.in-addr.arpa`, 'PTR')).toEqual([
      `${name}.lab.ferry.test`,
    ]);
    expect(result.fqdn).toBe(`${name}.lab.ferry.test`);

    // Every step is listed; the first run changed things.
    expect(result.steps.map((s) => s.step)).toEqual([
      'allocate-vmid',
      'record-vmid',
      'create-vm',
      'acl',
      'disk',
      'nic',
      'options',
      'interface',
      'mac',
      'ip',
      'primary-ip',
      'dns-a',
      'dns-ptr',
      'netbox-status',
    ]);
    expect(result.steps.filter(changed).map((s) => s.step)).toEqual(result.steps.map((s) => s.step));
    expect(result.waits).toEqual([{ for: `VM ${vmid} visible cluster-wide`, waitedMs: expect.any(Number) }]);

    // A rerun of the finished provision: a new run with the same id, no write anywhere.
    await suite.lab.admin.clearLog();
    const serial = await suite.lab.deps.dns!.soaSerial('lab.ferry.test');
    const rerun = await provision(id);
    expect(rerun.outcome).toBe('provisioned');
    expect(rerun.vmid).toBe(vmid);
    expect(rerun.steps.filter(changed)).toEqual([]);
    expect(rerun.steps.find((s) => s.step === 'create-vm')?.outcome).toBe('adopted');
    const log = await suite.lab.admin.log();
    expect(log.requests.length).toBeGreaterThan(5);
    expect(apiWrites(log.requests)).toEqual([]);
    expect(await suite.lab.deps.dns!.soaSerial('lab.ferry.test')).toBe(serial);
    expect(await suite.lab.nb.interfaceAddresses(iface.id)).toEqual(addresses.map((a) => ipAddressSchema.parse(a)));
  });

  /**
   * NetBox is what bounds provisioning throughput (docs/benchmarks.md): each request costs its
   * gunicorn worker tens of milliseconds of CPU. These are the requests one new VM costs, through a
   * logging proxy in front of the real NetBox, so a change that adds one is seen.
   */
  it('costs NetBox, for a new VM, one read, the VMID write, interface, MAC, address and status, each written once without a read before it', async () => {
    const proxy = await startNetboxProxy(suite.lab.netbox.url);
    const document = { ...suite.lab.document, netbox: { ...(suite.lab.document.netbox as object), url: proxy.url } };
    const deps = await createDependencies(parseConfig(document, suite.lab.env, 'NetBox requests test'));
    const workers = await runWorkers(suite.temporal.nativeConnection, deps, 'nbreq-proxied');
    try {
      const { id } = await suite.lab.plannedVm({});
      const result = await suite.temporal.client.workflow.execute<typeof provisionVm>('provisionVm', {
        taskQueue: workers.taskQueue,
        workflowId: `${workers.taskQueue}-${provisionWorkflowId({ netboxId: id })}`,
        args: [{ netboxId: id }],
      });
      expect(result.outcome).toBe('provisioned');
      const vm = `/api/virtualization/virtual-machines/${id}/`;
      expect(proxy.requests).toEqual([
        `GET ${vm} 200`, // the record
        'GET /api/virtualization/virtual-machines/ 200', // the VMID allocator: the VMIDs NetBox holds
        `PATCH ${vm} 200`, // ferry_vmid, guarded by the ETag of the first read
        'POST /api/virtualization/interfaces/ 201', // the VM had none: no look first
        'POST /api/dcim/mac-addresses/ 201',
        expect.stringMatching(/^PATCH \/api\/virtualization\/interfaces\/\d+\/ 200$/), // its primary MAC
        'GET /api/ipam/prefixes/ 200', // once a minute per worker
        expect.stringMatching(/^POST \/api\/ipam\/prefixes\/\d+\/available-ips\/ 201$/),
        `PATCH ${vm} 200`, // primary IPv4
        `PATCH ${vm} 200`, // planned → staged, guarded by the ETag the last write answered
      ]);
      const { value: record } = await suite.lab.nb.getVirtualMachine(id);
      expect(record).toMatchObject({
        status: { value: 'staged' },
        custom_fields: { ferry_vmid: result.vmid },
        primary_ip4: { address: result.address },
      });
    } finally {
      await workers.stop();
      await deps.netbox?.close();
      await deps.proxmox?.close();
      await proxy.close();
    }
  });

  it('refuses a record whose name is on another VMID, non-retryable, saying so; nothing is created', async () => {
    const pve = suite.lab.deps.proxmox!;
    const { id, name } = await suite.lab.plannedVm({ fields: { ferry_vmid: 9501 } });
    await pve.vms.create({ node: 'pve2', vmid: 9502, name });
    await suite.lab.admin.clearLog();
    const failure = await provision(id).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    const cause = (failure as WorkflowFailedError).cause as { type?: string; nonRetryable?: boolean; message: string };
    expect(cause).toMatchObject({ type: 'VmidClash', nonRetryable: true });
    expect(cause.message).toBe(
      `a Proxmox VM named "${name}" already exists as VMID 9502, not 9501: fix ferry_vmid of NetBox VM ${id} to match it, or rename or remove that VM. Nothing was created.`,
    );
    expect(apiWrites((await suite.lab.admin.log()).requests)).toEqual([]);
    expect(await pve.vms.findById(9501)).toBeUndefined();
    // The status query still answers after the failure (a worker replays it): where it stopped, and why.
    const status = await suite.temporal.client.workflow
      .getHandle(`${suite.workers.taskQueue}-${provisionWorkflowId({ netboxId: id })}`)
      .query(provisionStatusQuery);
    expect(status).toMatchObject({ stage: 'failed', vmid: 9501, name, steps: [], error: cause.message });
    expect((await suite.lab.nb.getVirtualMachine(id)).value.status.value).toBe('planned');
    expect(await suite.lab.nb.listInterfaces(id)).toEqual([]);
  });

  it('checks through the API that the node has the storage, network and ISO, and lists every problem before building anything', async () => {
    const { id, name } = await suite.lab.plannedVm({
      fields: { ferry_vmid: 9602, ferry_storage: 'ceph', ferry_network: 'vmbr9', ferry_iso: 'local:iso/missing.iso' },
    });
    await suite.lab.admin.clearLog();
    const failure = await provision(id).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect((failure as WorkflowFailedError).cause).toMatchObject({
      type: 'PreflightFailed',
      nonRetryable: true,
      message: `${name} cannot be built on pve1: storage ceph is not available on pve1 (it has local, local-lvm, nfs-migration); network vmbr9 is neither a bridge on pve1 nor an SDN VNet; ISO local:iso/missing.iso is not in storage local on pve1`,
    });
    expect(apiWrites((await suite.lab.admin.log()).requests)).toEqual([]);
  });

  it('fails a bad spec at once, non-retryable, with every problem listed; nothing is read or written beyond the settings', async () => {
    await suite.lab.admin.clearLog();
    const workflowId = `${suite.workers.taskQueue}-bad-spec`;
    const failure = await suite.temporal.client.workflow
      .execute<typeof provisionVm>('provisionVm', {
        taskQueue: suite.workers.taskQueue,
        workflowId,
        args: [
          {
            spec: {
              name: 'Bad Name!',
              node: 'pve1',
              cores: 0,
              memoryMiB: 512,
              disks: [{ slot: 'ide0', storage: 'local-lvm', sizeGiB: 0 }],
              nics: [{ slot: 'net0', network: 'vmbr0', vlan: 5000 }],
              colour: 'red',
            },
          },
        ],
      })
      .then(
        () => undefined,
        (err: unknown) => err,
      );
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    const cause = (failure as WorkflowFailedError).cause as { type?: string; nonRetryable?: boolean; message: string };
    expect(cause).toMatchObject({ type: 'InvalidSpec', nonRetryable: true });
    expect(cause.message.split('\n')).toEqual([
      'the spec is not valid:',
      '  - spec: name: a DNS label: letters, digits and dashes, at most 63, not starting or ending with a dash',
      '  - spec: cores: at least 1',
      '  - spec: disks.0.slot: scsi0–30, virtio0–15 or sata0–5 (ide2 holds the ISO)',
      '  - spec: disks.0.sizeGiB: at least 1 GiB',
      '  - spec: nics.0.vlan: VLAN 1–4094',
      '  - spec: (top level): unknown key(s) "colour"',
    ]);
    const history = await suite.temporal.client.workflow.getHandle(workflowId).fetchHistory();
    const scheduled = (history.events ?? [])
      .filter((e) => e.activityTaskScheduledEventAttributes)
      .map((e) => e.activityTaskScheduledEventAttributes!.activityType!.name);
    expect(scheduled).toEqual(['loadProvisioningSettings']);
    expect((await suite.lab.admin.log()).requests).toEqual([]);
  });

  it('provisions from a whole spec without a NetBox record, and starts the VM under the start limit', async () => {
    const name = 'spec-vm1';
    const result = await suite.temporal.client.workflow.execute<typeof provisionVm>('provisionVm', {
      taskQueue: suite.workers.taskQueue,
      workflowId: `${suite.workers.taskQueue}-${provisionWorkflowId({ name })}`,
      args: [
        {
          spec: {
            name,
            vmid: 9601,
            node: 'pve2',
            cores: 1,
            memoryMiB: 512,
            disks: [{ slot: 'virtio0', storage: 'local-lvm', sizeGiB: 1 }],
            nics: [{ slot: 'net0', network: 'vmbr1', model: 'e1000', firewall: true }],
            extras: { onboot: '1' },
            tags: ['spec'],
            start: true,
          },
        },
      ],
    });
    expect(result).toMatchObject({ outcome: 'provisioned', vmid: 9601, node: 'pve2' });
    const outcome = (step: string) => result.steps.filter((s) => s.step === step).map((s) => s.outcome);
    expect(outcome('interface')).toEqual(['skipped']);
    expect(outcome('ip')).toEqual(['skipped']);
    expect(outcome('start')).toEqual(['created']);
    expect(result.waits.map((w) => w.for)).toEqual([
      `VM 9601 visible cluster-wide`,
      `a permit of vm-start (start ${name})`,
    ]);
    const pve = suite.lab.deps.proxmox!;
    expect((await pve.power.status('pve2', 9601)).status).toBe('running');
    const config = (await pve.config.get('pve2', 9601)).values;
    expect(config).toMatchObject({ onboot: '1', boot: 'order=virtio0;net0', tags: 'spec' });
    expect(parseNic(config.net0!)).toMatchObject({ model: 'e1000', options: { bridge: 'vmbr1', firewall: '1' } });
  });

  it('provisionPlanned builds every planned record of a tag, a bounded number at once; a second run starts nothing twice', async () => {
    const tag = await suite.lab.tag(`batch-${suite.workers.taskQueue.slice(-8)}`);
    const good = await Promise.all([suite.lab.plannedVm({ tags: [tag] }), suite.lab.plannedVm({ tags: [tag] })]);
    // One that cannot be built: its VMID belongs to another Proxmox VM.
    await suite.lab.deps.proxmox!.vms.create({ node: 'pve1', vmid: 9701, name: 'someone-else' });
    const clash = await suite.lab.plannedVm({ tags: [tag], fields: { ferry_vmid: 9701 } });
    const netboxName = suite.lab.config.netbox!.name!;
    const run = (n: number) =>
      suite.temporal.client.workflow.execute<typeof provisionPlanned>('provisionPlanned', {
        taskQueue: suite.workers.taskQueue,
        workflowId: `${suite.workers.taskQueue}-planned-${n}`,
        args: [{ tag, maxConcurrent: 2 }],
      });

    const first = await run(1);
    expect(first.stage).toBe('done');
    const outcomes = Object.fromEntries(first.vms.map((v) => [v.name, [v.outcome, v.workflowId]]));
    for (const vm of good) expect(outcomes[vm.name]).toEqual(['provisioned', `provision-${netboxName}-${vm.id}`]);
    expect(outcomes[clash.name]).toEqual(['failed', `provision-${netboxName}-${clash.id}`]);
    expect(first.vms.find((v) => v.name === clash.name)!.error).toContain(
      'VMID 9701 already belongs to Proxmox VM "someone-else"',
    );
    expect(first.counts).toEqual({ pending: 0, running: 0, finished: 3 });
    for (const vm of good) expect((await suite.lab.nb.getVirtualMachine(vm.id)).value.status.value).toBe('staged');

    // The failed record is still planned; the second run does not start it again.
    const second = await run(2);
    expect(second.vms.map((v) => [v.name, v.outcome])).toEqual([[clash.name, 'not-started']]);
    const runs = [];
    for await (const wf of suite.temporal.client.workflow.list({
      query: `WorkflowId = 'provision-${netboxName}-${clash.id}'`,
    }))
      runs.push(wf.runId);
    expect(runs).toHaveLength(1);
  });
});

import { NAMED_VMS } from '../../lab/vcsim/estate';
import { spawnFerry } from '../helpers/processes';
import { startTestVcsim, vmwareEnv, TEST_EXTRA_VMS, type TestVcsim } from '../helpers/vcsim';

describe('ferry discover, as a user runs it', () => {
  jest.setTimeout(120_000);
  let sim: TestVcsim;
  let env: Record<string, string>;

  beforeAll(async () => {
    sim = await startTestVcsim();
    env = vmwareEnv(sim);
  });

  afterAll(() => sim?.stop());

  async function ferry(...args: string[]) {
    const run = spawnFerry(['discover', ...args], env);
    const code = await run.exited;
    return { code, output: run.output() };
  }

  it("prints each VM with its NICs' VLANs and disks, and what will not be translated, with the reason", async () => {
    const { code, output } = await ferry();
    expect(code).toBe(0);
    expect(output).toContain(`VMs (${NAMED_VMS.length + TEST_EXTRA_VMS}) in 127.0.0.1`);
    expect(output).toMatch(
      /^mig-web01 +on +efi +4 \(1\/socket\) +DC0_C0 +vmxnet3 \S+ PG-VLAN100 \(vlan 100\) +20 GiB \[nfs-migration\] mig-web01\/mig-web01\.vmdk$/m,
    );
    expect(output).toMatch(
      /^vm-\d+ +8192 MB +DC0_C0_H0 +e1000e \S+ PG-VLAN200 \(vlan 200\) +50 GiB \[nfs-migration\] mig-web01\/mig-web01_1\.vmdk$/m,
    );
    expect(output).toMatch(/^PG-TRUNK +dvportgroup-\d+ +DSwitch-Mig +trunk 100-200,300-310$/m);
    // The real-guest VMs: the address each NIC's guest had on VMware, and where ferry read it.
    expect(output).toMatch(
      /^mig-app01 +on +bios +1 \(1\/socket\) +DC0_C0 +vmxnet3 00:50:56:01:00:01 PG-VLAN100 \(vlan 100\) 198\.51\.100\.21 \(from tools\) +384 MiB \[nfs-migration\] mig-app01\/mig-app01\.vmdk$/m,
    );
    expect(output).toMatch(
      /^mig-app02 +on +efi +2 \(1\/socket\) +DC0_C0 +vmxnet3 00:50:56:01:00:02 PG-VLAN100 \(vlan 100\) 198\.51\.100\.22 \(from tools\) +384 MiB/m,
    );
    expect(output).toMatch(
      /^vm-\d+ +2048 MB +DC0_C0_H2 +vmxnet3 00:50:56:01:00:03 PG-VLAN200 \(vlan 200\) 203\.0\.113\.22 \(from tools\)$/m,
    );
    expect(output).toMatch(/^guest mig-app02$/m);
    expect(output).toMatch(/^mig-ens01 +on +bios .* 198\.51\.100\.23 \(from tools\) /m);
    const notTranslated = output.slice(output.indexOf('Not translated automatically'));
    expect(notTranslated).toMatch(/^Not translated automatically \(7\)$/m);
    for (const [vm, why] of [
      ['mig-router01', /Network adapter 1 \(PG-TRUNK\): .*trunk portgroup carrying VLANs 100-200,300-310/],
      ['mig-dmz01', /Network adapter 1 \(PG-PVLAN\): .*private VLAN 501/],
      ['mig-std01', /Network adapter 1 \(VM Network\): .*standard-switch network VM Network/],
      ['mig-snap01', /mig-snap01 has snapshots/],
      ['mig-indep01', /Hard disk 2: .*independent_persistent/],
      ['mig-rdm01', /Hard disk 2: .*raw device mapping \(physicalMode\)/],
      ['mig-tmpl01', /mig-tmpl01 is a template/],
    ] as const) {
      expect(notTranslated).toMatch(new RegExp(`^  ${vm} \\(vm-\\d+\\): ${why.source}`, 'm'));
    }
    expect(notTranslated).not.toMatch(/mig-web01|mig-db01|mig-app0|mig-ens01/);
    expect(output).not.toContain(sim.config.password);
  });

  it('prints the same as JSON, scoped to a folder', async () => {
    const { code, output } = await ferry('--json', '--datacenter', 'DC0', '--folder', 'db', '--page-size', '2');
    expect(code).toBe(0);
    const report = JSON.parse(output) as {
      inventory: { vms: Array<{ name: string; numCoresPerSocket: number }>; portgroups: unknown[] };
      notTranslated: Array<{ vm: string; code: string; subject: string; reason: string }>;
      stats: { pages: number; roundTrips: number };
    };
    expect(report.inventory.vms.map((v) => v.name)).toEqual(['mig-db01', 'mig-rdm01']);
    expect(report.inventory.vms[0]!.numCoresPerSocket).toBe(2);
    expect(report.notTranslated).toEqual([
      {
        vm: 'mig-rdm01',
        moid: expect.stringMatching(/^vm-/),
        code: 'rdm',
        subject: 'Hard disk 2',
        reason: expect.stringContaining('raw device mapping'),
      },
    ]);
    expect(report.stats.pages).toBeGreaterThan(3);
    // The folder as an inventory path (the form plan and migrate take): the same VMs, no --datacenter needed.
    for (const args of [
      ['--folder', '/DC0/vm/db'],
      ['--datacenter', 'DC0', '--folder', '/DC0/vm/db/'],
    ]) {
      const byPath = await ferry('--json', ...args);
      expect(byPath.code).toBe(0);
      expect((JSON.parse(byPath.output) as typeof report).inventory.vms.map((v) => v.name)).toEqual([
        'mig-db01',
        'mig-rdm01',
      ]);
    }
    const apps = JSON.parse((await ferry('--json', '--datacenter', 'DC0', '--folder', 'apps')).output) as {
      inventory: { vms: Array<{ name: string; guestAddresses?: unknown; guestHostName?: string }> };
    };
    expect(apps.inventory.vms.find((v) => v.name === 'mig-app02')).toMatchObject({
      guestHostName: 'mig-app02',
      guestAddresses: [
        { mac: '00:50:56:01:00:02', addresses: ['198.51.100.22'], source: 'tools' },
        { mac: '00:50:56:01:00:03', addresses: ['203.0.113.22'], source: 'tools' },
      ],
    });
    expect(apps.inventory.vms.find((v) => v.name === 'mig-web01')).not.toHaveProperty('guestAddresses');
    // service content, login, FindByInventoryPath ×2, two views, pages, two DestroyView, logout
    expect(report.stats.roundTrips).toBe(report.stats.pages + 9);
  });

  it('says what is wrong with the options or the configuration', async () => {
    const badScope = await ferry('--folder', 'apps');
    expect(badScope.code).toBe(1);
    expect(badScope.output).toMatch(/a folder or cluster scope needs the datacenter it is in/);
    const elsewhere = await ferry('--datacenter', 'DC0', '--folder', '/DC1/vm/db');
    expect(elsewhere.output).toContain(
      'folder /DC1/vm/db is not in datacenter /DC0: its VM folders are under /DC0/vm/',
    );
    expect(elsewhere.code).toBe(1);
    // Usage and configuration errors exit 2.
    const badPage = await ferry('--page-size', 'many');
    expect(badPage.code).toBe(2);
    expect(badPage.output).toContain(
      `option '--page-size <n>' argument 'many' is invalid. expected a whole number from 1 to 10000`,
    );
    const run = spawnFerry(['discover'], {
      ...env,
      VMWARE_HOST: '',
      VMWARE_USER: '',
      VMWARE_PASSWORD: '',
      VMWARE_PORT: '',
      VMWARE_CA_FILE: '',
    });
    expect(await run.exited).toBe(2);
    expect(run.output()).toMatch(/no vCenter configured: set VMWARE_HOST, VMWARE_USER and VMWARE_PASSWORD/);
  });
});

import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { guestExec } from '../helpers/guest-exec';
import { toolPath } from '../../lab/tools';
import { freePort } from '../../lab/free-port';
import { run, spawnFerry, type Spawned } from '../helpers/processes';
import { anyStatusQuery } from '../../src/domain/messages';

describe('ferry lab, as a user runs it', () => {
  jest.setTimeout(700_000);
  let lab: Spawned;
  let port: number;
  let uiPort: number;
  let proxmoxPort: number;
  let stateDir: string;

  beforeAll(async () => {
    port = await freePort();
    uiPort = await freePort();
    proxmoxPort = await freePort();
    stateDir = mkdtempSync(path.join(tmpdir(), 'ferry-lab-'));
    lab = spawnFerry(['lab', '--port', String(port), '--ui-port', String(uiPort)], {
      FERRY_STATE_DIR: stateDir,
      FERRY_LAB_PROXMOX_PORT: String(proxmoxPort),
    });
    // Until the wave waits at its gate (its guests inspected for conversion, an appliance boot each under
    // TCG), the planned VMs are built (lab-web1 boots the guest image under TCG) and lab-web1, edited in
    // NetBox, has its live changes verified in its guest (day 2).
    await lab.waitFor(/ferry lab is running/, 660_000);
  });

  afterAll(async () => {
    if (lab.child.exitCode === null) {
      lab.child.kill('SIGKILL');
      await lab.exited;
    }
    // The lab's state is 3 GiB (disks, guests, NetBox's database): a run that kept it filled the disk in a
    // day of CI. FERRY_TEST_KEEP_STATE=1 keeps it to read after a failure.
    if (process.env.FERRY_TEST_KEEP_STATE) console.log(`kept the lab's state in ${stateDir}`);
    else if (stateDir) rmSync(stateDir, { recursive: true, force: true });
  });

  it('ran the sample: doctor found Temporal healthy', () => {
    expect(lab.output()).toMatch(new RegExp(`ok +temporal +127\\.0\\.0\\.1:${port} server \\d+\\.\\d+`));
  });

  it('ran the sample: doctor found the lab NetBox and DNS healthy, with versions', () => {
    expect(lab.output()).toMatch(
      /^ *ok +netbox +http:\/\/127\.0\.0\.1:\d+ NetBox 4\.\d+\.\d+ \[tls: plaintext\] v2 token accepted/m,
    );
    expect(lab.output()).toMatch(
      /^ *ok +dns +127\.0\.0\.1:\d+ server 9\.\d+\S* \[tls: plaintext\] TSIG key ferry-key/m,
    );
  });

  it('ran the sample: doctor found the lab vCenter (vcsim) healthy over verified TLS', () => {
    expect(lab.output()).toMatch(
      /ok +vsphere +https:\/\/127\.0\.0\.1:\d+\/sdk VMware vCenter Server .*\(API 8\.0\.3\.0\) \[tls: verified\] logged in as ferry/,
    );
  });

  it('ran the sample: doctor found the Proxmox simulator healthy, TLS verified against its CA', () => {
    expect(lab.output()).toMatch(
      new RegExp(`ok +proxmox +https://127\\.0\\.0\\.1:${proxmoxPort} PVE 9\\.1\\.3 \\[tls: verified\\]`),
    );
  });

  it('prints a curl line with the real token that answers, and a misspelled parameter gets a 400 naming it', async () => {
    const [versionLine] = lab.output().match(/curl -k -H '[^']+' https:\/\/\S+\/api2\/json\/version/) ?? [];
    expect(versionLine).toBeDefined();
    const version = await run('bash', ['-c', `${versionLine} -s`]);
    expect(JSON.parse(version.stdout)).toEqual({
      data: { version: '9.1.3', release: '9.1', repoid: expect.any(String) },
    });
    const misspelled = await run('bash', [
      '-c',
      `${versionLine!.replace('/version', "/cluster/resources?tpye=vm'").replace('https://', "'https://")} -s -w '\\n%{http_code}'`,
    ]);
    const [body, status] = misspelled.stdout.split('\n');
    expect(status).toBe('400');
    expect(JSON.parse(body!).errors).toEqual({
      tpye: 'property is not defined in schema and the schema does not allow additional properties',
    });
  });

  it('serves the Temporal Web UI', async () => {
    const response = await fetch(`http://127.0.0.1:${uiPort}/`);
    expect(response.status).toBe(200);
    expect(await response.text()).toMatch(/<html/i);
  });

  it('runs doctor started by the temporal CLI, as the README shows', async () => {
    const result = await run(toolPath('temporal'), [
      'workflow',
      'execute',
      '--address',
      `127.0.0.1:${port}`,
      '--type',
      'doctor',
      '--task-queue',
      'ferry',
      '--workflow-id',
      'doctor-from-cli',
      '-o',
      'json',
    ]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const { result: report } = JSON.parse(result.stdout) as {
      result: { ok: boolean; verdicts: Array<{ endpoint: string }> };
    };
    expect(report.ok).toBe(true);
    expect(report.verdicts.map((v) => v.endpoint)).toContain('temporal');

    const listed = await run(toolPath('temporal'), [
      'workflow',
      'list',
      '--address',
      `127.0.0.1:${port}`,
      '--query',
      "FerryKind='doctor'",
      '-o',
      'json',
    ]);
    expect(listed.stdout).toContain('doctor-from-cli');
  });

  it('answers `ferry doctor` from another terminal', async () => {
    const doctor = spawnFerry(['doctor'], { TEMPORAL_ADDRESS: `127.0.0.1:${port}` });
    expect(await doctor.exited).toBe(0);
    expect(doctor.output()).toMatch(new RegExp(`^ok +temporal +127\\.0\\.0\\.1:${port}`, 'm'));
  });

  it('lists ferry workflows and shows a workflow’s status', async () => {
    const list = spawnFerry(['list', '--kind', 'doctor'], { TEMPORAL_ADDRESS: `127.0.0.1:${port}` });
    expect(await list.exited).toBe(0);
    expect(list.output()).toMatch(/COMPLETED +doctor .*doctor-from-cli/);
    const status = spawnFerry(['status', 'doctor-from-cli'], { TEMPORAL_ADDRESS: `127.0.0.1:${port}` });
    expect(await status.exited).toBe(0);
    expect(status.output()).toMatch(/^doctor-from-cli \(doctor\): COMPLETED\n {2}ok +temporal/m);
  });

  it('writes its configuration without secrets, and the commands it prints reach the lab with it', async () => {
    const [, configFile] = lab.output().match(/^Its configuration \(no secrets\): (\S+)$/m) ?? [];
    expect(configFile).toBeDefined();
    const text = readFileSync(configFile!, 'utf8');
    expect(text).toContain(`address: 127.0.0.1:${port}`);
    expect(text).toMatch(/^ {2}name: lab-\S+$/m);
    expect(text).not.toMatch(/tokenSecret|password|tsigSecret|token:/i);
    expect(lab.output()).toContain(`FERRY_CONFIG=${configFile} npm run ferry -- doctor`);
    // No TEMPORAL_ADDRESS: the port comes from the lab's file alone.
    const list = spawnFerry(['list', '--kind', 'doctor'], { FERRY_CONFIG: configFile!, TEMPORAL_ADDRESS: '' });
    expect(await list.exited).toBe(0);
    expect(list.output()).toMatch(/COMPLETED +doctor .*doctor-from-cli/);
  });

  it('brought the lab wave to the approval gate; after `ferry approve` the real guests come up verified, the VMware-native ones converted', async () => {
    const [, waveWorkflowId] = lab.output().match(/npm run ferry -- approve (wave-lab-\S+) --by lab-admin/) ?? [];
    expect(waveWorkflowId).toBeDefined();
    expect(lab.output()).toMatch(/lab: plan: 24 VMs, \d+ actions; 7 not translatable:/);
    // At the gate the lab shows what conversion will do, from the guests' disks (inspected read-only).
    expect(lab.output()).toMatch(
      /^ {2}mig-ens01: converted \(linux: debian 12\.\d+ \(x86_64\)\)\n {4}- qcow2 overlay/m,
    );
    expect(lab.output()).toContain(
      '- NIC net0 00:50:56:01:00:04: ens192 on VMware, ens18 on Proxmox without a pin: pinned to ens192 (by slot order)',
    );
    expect(lab.output()).toMatch(
      /^ {2}mig-ens02: converted .*\n(?: {4}.*\n)*? {4}- UEFI fallback path: EFI\/debian\/shimx64\.efi → EFI\/BOOT\/BOOTX64\.EFI/m,
    );
    expect(lab.output()).toMatch(/^ {2}mig-app01: not converted: .*no GRUB configuration/m);
    const env = { TEMPORAL_ADDRESS: `127.0.0.1:${port}` };
    // VMware's files as they are before the cutover: a conversion only reads them.
    const nfs = path.join(stateDir, 'lab', 'nfs-migration');
    const checksums = (vm: string) =>
      execFileSync('sha256sum', [`${vm}/${vm}.vmdk`, `${vm}/${vm}-flat.vmdk`], { cwd: nfs, encoding: 'utf8' });
    const before = { 'mig-ens01': checksums('mig-ens01'), 'mig-ens02': checksums('mig-ens02') };

    const refusedApprover = spawnFerry(['approve', waveWorkflowId!, '--by', 'mallory', '--reason', 'e2e'], env);
    expect(await refusedApprover.exited).toBe(1);
    expect(refusedApprover.output()).toContain('mallory is not an approver');

    const approve = spawnFerry(['approve', waveWorkflowId!, '--by', 'lab-admin', '--reason', 'e2e cutover'], env);
    expect(await approve.exited).toBe(0);
    expect(approve.output()).toContain(`approve: accepted by ${waveWorkflowId}`);

    type Verification = { state: string; bootToAgentSeconds?: number; downtimeSeconds?: number };
    type WaveView = {
      vms: Array<{ name: string; workflowId: string; outcome?: string; verification?: Verification }>;
      refused: Array<{ name: string }>;
    };
    // The real guests boot under QEMU (TCG): minutes on a busy machine. One `status --watch` follows the
    // wave to its end (a CLI process every half second would take a core from the guests' QEMU); it asks
    // every 2 s, so the wave's end is seen within 2 s.
    const watched = spawnFerry(['status', waveWorkflowId!, '--watch', '--interval', '2'], env);
    expect(await watched.exited).toBe(0);
    const shown = spawnFerry(['status', waveWorkflowId!, '--json', '--full'], env);
    expect(await shown.exited).toBe(0);
    const status = JSON.parse(shown.output()) as { state: string; status?: WaveView };
    expect(status.state).toBe('COMPLETED');
    const vmsByName = Object.fromEntries(status.status!.vms.map((v) => [v.name, v]));
    const outcomes = Object.fromEntries(status.status!.vms.map((v) => [v.name, v.outcome]));
    expect(outcomes['mig-web01']).toBe('migrated');
    expect(outcomes['mig-db01']).toBe('migrated');
    expect(outcomes['mig-legacy01']).toBe('refused');
    expect(status.status!.refused.map((r) => r.name).sort()).toEqual([
      'mig-dmz01',
      'mig-indep01',
      'mig-rdm01',
      'mig-router01',
      'mig-snap01',
      'mig-std01',
      'mig-tmpl01',
    ]);
    // Every real guest came up on Proxmox as itself (agent, its VMware address on its VMware MAC, the
    // TCP probe): the lab image's as it is, the VMware-native ones converted. Nothing rolled back.
    const guests = ['mig-app01', 'mig-app02', 'mig-ens01', 'mig-ens02'];
    for (const name of guests) {
      expect(vmsByName[name]).toMatchObject({ outcome: 'migrated', verification: { state: 'verified' } });
      expect(vmsByName[name]!.verification!.bootToAgentSeconds).toBeGreaterThan(0);
      expect(vmsByName[name]!.verification!.downtimeSeconds).toBeGreaterThan(0);
    }
    // `ferry status` of the wave shows boot-to-agent and downtime per real-guest VM...
    const text = spawnFerry(['status', waveWorkflowId!], env);
    expect(await text.exited).toBe(0);
    for (const name of guests)
      expect(text.output()).toMatch(
        new RegExp(`${name}\\b.*guest verified \\(boot-to-agent \\d+ s, downtime [\\d.]+ s\\)`),
      );
    // ...and of a converted VM, its conversion with the time of each step (part of its downtime).
    for (const name of ['mig-ens01', 'mig-ens02']) {
      const one = spawnFerry(['status', vmsByName[name]!.workflowId], env);
      expect(await one.exited).toBe(0);
      const [, seconds] =
        one
          .output()
          .match(
            /^ {2}conversion: converted \(linux: debian 12\.\d+ \(x86_64\)\) in ([\d.]+) s under TCG: overlays [\d.]+ s, inspect-and-edit [\d.]+ s, virt-v2v [\d.]+ s$/m,
          ) ?? [];
      expect(Number(seconds)).toBeGreaterThan(0);
      expect(one.output()).toMatch(/^ {2}overlays on nfs-migration: removed images\/\d+\/vm-\d+-disk-0\.qcow2$/m);
      // The lab cuts over in overlay mode: the VM ran from its converted overlay, then its disk moved live.
      expect(one.output()).toMatch(
        /^ {4}mig-ens0\d: attach scsi0 from a qcow2 overlay of Hard disk 1 on the migration datastore$/m,
      );
      expect(one.output()).toMatch(/^ {2}move scsi0: moved to local-lvm:vm-\d+-disk-\d+ in [\d.]+ s/m);
      console.log(
        `${name}: conversion ${seconds} s, downtime ${vmsByName[name]!.verification!.downtimeSeconds} s, boot-to-agent ${vmsByName[name]!.verification!.bootToAgentSeconds} s`,
      );
    }
    // VMs with blank disks are started but not claimed verified.
    expect(vmsByName['mig-web01']!.verification).toMatchObject({ state: 'not-verified-skipped' });

    // The Proxmox side, through the API with the lab's token: the migrated VMs exist and run.
    const [versionLine] = lab.output().match(/curl -k -H '[^']+' https:\/\/\S+\/api2\/json\/version/) ?? [];
    const api = async (pathname: string) =>
      JSON.parse((await run('bash', ['-c', `${versionLine!.replace('/api2/json/version', pathname)} -s`])).stdout) as {
        data: unknown;
      };
    const vms = (
      (await api('/api2/json/cluster/resources?type=vm')).data as Array<{
        name?: string;
        vmid: number;
        status: string;
        type: string;
      }>
    ).filter((r) => r.type === 'qemu');
    for (const name of ['mig-web01', 'mig-db01', ...guests])
      expect(vms.find((v) => v.name === name)).toMatchObject({ status: 'running' });
    expect(vms.some((v) => v.name === 'mig-snap01')).toBe(false);
    // Inside the converted guests, read through their agent: VMware Tools gone, the QEMU guest agent installed.
    for (const name of ['mig-ens01', 'mig-ens02']) {
      const vmid = vms.find((v) => v.name === name)!.vmid;
      const qemu = (await api(`/_sim/vms/${vmid}/qemu`)).data as { agentSocket: string };
      const packages = await guestExec(qemu.agentSocket, '/usr/bin/dpkg-query', [
        '-W',
        '-f=${Package} ${db:Status-Status}\n',
        'open-vm-tools',
        'qemu-guest-agent',
      ]);
      expect(packages.stdout).toBe('open-vm-tools not-installed\nqemu-guest-agent installed\n');
      // On its target storage, nothing of it left on the migration datastore; VMware's VMDK byte for byte as before.
      expect(checksums(name)).toBe(before[name as keyof typeof before]);
      expect(existsSync(path.join(nfs, 'images', String(vmid)))).toBe(false);
      const config = (await api(`/api2/json/nodes/pve1/qemu/${vmid}/config`)).data as Record<string, unknown>;
      expect(Object.entries(config).filter(([, v]) => String(v).includes('nfs-migration'))).toEqual([]);
    }
  }, 900_000);

  it('provisioned the planned NetBox VMs on the simulator; `ferry list` and `ferry status` show them', async () => {
    const env = { TEMPORAL_ADDRESS: `127.0.0.1:${port}` };
    expect(lab.output()).toMatch(/^lab: provisioned 3 of 3 planned NetBox VMs:$/m);
    const ids: Record<string, string> = {};
    for (const [name, vmid] of [
      ['lab-web1', 9001],
      ['lab-web2', 9002],
      ['lab-db1', 9003],
    ] as const) {
      const [, workflowId] =
        lab
          .output()
          .match(new RegExp(`^ {2}${name} +VM ${vmid} 192\\.0\\.2\\.\\d+/24 +(provision-lab-\\S+-\\d+)$`, 'm')) ?? [];
      expect(workflowId).toBeDefined();
      ids[name] = workflowId!;
    }
    const list = spawnFerry(['list', '--kind', 'provision'], env);
    expect(await list.exited).toBe(0);
    for (const [name, vmid] of [
      ['lab-web1', 9001],
      ['lab-web2', 9002],
      ['lab-db1', 9003],
    ]) {
      expect(list.output()).toMatch(new RegExp(`COMPLETED +provision +done +${name} \\(${vmid}\\) +${ids[name!]}`));
    }
    const status = spawnFerry(['status', ids['lab-web1']!], env);
    expect(await status.exited).toBe(0);
    expect(status.output()).toContain(
      `${ids['lab-web1']} (provisionVm): COMPLETED\n  stage: done, outcome provisioned\n  VM 9001, lab-web1, on pve1, NetBox VM `,
    );
    expect(status.output()).toMatch(/^ {4}create-vm +VM 9001: created \(lab-web1 on pve1\)$/m);
    expect(status.output()).toMatch(/^ {4}dns-a +lab-web1\.lab\.ferry\.test A 192\.0\.2\.\d+: created$/m);
    expect(status.output()).toMatch(/^ {4}netbox-status +NetBox VM \d+: updated \(staged\)$/m);
    // lab-web1's record names the guest image (ferry_image): it booted it under QEMU, its agent answered
    // and its NetBox address (from the cloud-init drive) is on the guest. The other two start simulated.
    expect(status.output()).toMatch(/^ {4}disk +scsi0: created /m);
    expect(status.output()).toMatch(/^ {4}cloud-init +scsi30: created/m);
    const [, web1Address] =
      status.output().match(/^ {4}dns-a +lab-web1\.lab\.ferry\.test A (192\.0\.2\.\d+): created$/m) ?? [];
    expect(status.output()).toMatch(
      new RegExp(
        `^ {4}verify-guest +VM 9001: unchanged \\(agent after \\d+ s, ${web1Address!.replace(/\./g, '\\.')} on the guest\\)$`,
        'm',
      ),
    );
    const web1 = spawnFerry(['status', ids['lab-web1']!, '--json'], env);
    expect(await web1.exited).toBe(0);
    const verification = (
      JSON.parse(web1.output()) as { status: { verification?: { state: string; bootToAgentSeconds?: number } } }
    ).status.verification;
    expect(verification).toMatchObject({ state: 'verified', bootToAgentSeconds: expect.any(Number) });
    console.log(`lab-web1 (provisioned from the guest image): boot-to-agent ${verification!.bootToAgentSeconds} s`);

    // The same from the temporal CLI, as the README shows.
    const queried = await run(toolPath('temporal'), [
      'workflow',
      'query',
      '--address',
      `127.0.0.1:${port}`,
      '--workflow-id',
      ids['lab-web1']!,
      '--name',
      anyStatusQuery.name,
      '-o',
      'json',
    ]);
    expect(queried.code).toBe(0);
    expect(JSON.parse(queried.stdout)).toMatchObject({
      queryResult: [{ kind: 'provision', stage: 'done', vmid: 9001, name: 'lab-web1' }],
    });
  });

  it("day 2: lab-web1 edited in NetBox reaches its running guest through NetBox's webhook; the vCPU change waits for `ferry approve --restart`", async () => {
    const env = { TEMPORAL_ADDRESS: `127.0.0.1:${port}` };
    const out = lab.output();
    expect(out).toMatch(
      /^lab: NetBox's event rule posts VM, interface and disk edits to http:\/\/127\.0\.0\.1:\d+\/netbox\/webhook/m,
    );
    expect(out).toContain("lab: day 2: change-9001 (started by NetBox's webhook): awaiting-approval");
    expect(out).toMatch(/^ {2}plan +memory: 2048 MiB → 2560 MiB \[live, NetBox\]/m);
    expect(out).toMatch(/^ {2}plan +vcpus: 2 → 3 \[at-restart, NetBox\]/m);
    // Each live change verified in the guest itself (its agent): memory online, the disk's size, the MAC with its address.
    expect(out).toMatch(
      /^ {2}outcome +memory: applied-live \(Proxmox has it, nothing pending; the guest sees \d+ MiB\)$/m,
    );
    expect(out).toMatch(/^ {2}outcome +scsi0\.size: applied-live \(.*the guest sees scsi0 as 21G\)$/m);
    expect(out).toMatch(/^ {2}outcome +net0\.tag: applied-live \(.*with NetBox's address 192\.0\.2\.\d+\/24\)$/m);
    expect(out).toMatch(/^ {2}outcome +vcpus: held /m);
    expect(out).toContain('approve:  ');

    const approve = spawnFerry(
      ['approve', 'change-9001', '--by', 'lab-admin', '--reason', 'lab day 2', '--restart'],
      env,
    );
    expect(await approve.exited).toBe(0);
    const status = spawnFerry(['status', 'change-9001', '--json'], env);
    expect(await status.exited).toBe(0);
    let result = (JSON.parse(status.output()) as { status: { stage: string } }).status;
    for (let i = 0; i < 300 && !['done', 'failed'].includes(result.stage); i++) {
      await new Promise((r) => setTimeout(r, 1000));
      const again = spawnFerry(['status', 'change-9001', '--json'], env);
      await again.exited;
      result = (JSON.parse(again.output()) as { status: typeof result }).status;
    }
    expect(result).toMatchObject({
      stage: 'done',
      outcome: 'applied',
      restarted: true,
      outcomes: expect.arrayContaining([expect.objectContaining({ id: 'vcpus', outcome: 'applied-after-restart' })]),
    });
    const text = spawnFerry(['status', 'change-9001'], env);
    expect(await text.exited).toBe(0);
    expect(text.output()).toMatch(/^change-9001 \(changeVm\): COMPLETED/m);
  });

  it('tears a VM down with `ferry teardown --vmid`, and another by --netbox-id once `ferry approve` lets it', async () => {
    const env = { TEMPORAL_ADDRESS: `127.0.0.1:${port}` };
    const byVmid = spawnFerry(['teardown', '--vmid', '9003', '--wait'], env);
    expect(await byVmid.exited).toBe(0);
    expect(byVmid.output()).toContain(
      'teardown-9003 (teardownVm): COMPLETED\n  stage: done, outcome torn-down\n  VM 9003 lab-db1, NetBox VM ',
    );
    expect(byVmid.output()).toMatch(
      /^ {4}dns +done: removed PTR 192\.0\.2\.\d+, lab-db1\.lab\.ferry\.test A 192\.0\.2\.\d+$/m,
    );
    expect(byVmid.output()).toMatch(/^ {4}netbox-vm +done: deleted NetBox VM \d+$/m);

    const [, web2NetboxId] = lab.output().match(/^ {2}lab-web2 +VM 9002 \S+ +provision-lab-\S+-(\d+)$/m) ?? [];
    const byRecord = spawnFerry(['teardown', '--netbox-id', web2NetboxId!, '--require-approval'], env);
    expect(await byRecord.exited).toBe(0);
    expect(byRecord.output()).toContain('teardown: workflow teardown-9002');
    const statusOf = async () => {
      const shown = spawnFerry(['status', 'teardown-9002', '--json'], env);
      expect(await shown.exited).toBe(0);
      return JSON.parse(shown.output()) as { state: string; status?: { stage: string; outcome?: string } };
    };
    for (let i = 0; i < 60 && (await statusOf()).status?.stage !== 'awaiting-approval'; i++)
      await new Promise((r) => setTimeout(r, 500));
    const refused = spawnFerry(['approve', 'teardown-9002', '--by', 'mallory', '--reason', 'e2e'], env);
    expect(await refused.exited).toBe(1);
    expect(refused.output()).toContain('approve refused by teardown-9002: mallory is not an approver');
    const approve = spawnFerry(['approve', 'teardown-9002', '--by', 'lab-admin', '--reason', 'e2e teardown'], env);
    expect(await approve.exited).toBe(0);
    expect(approve.output()).toContain('approve: accepted by teardown-9002');
    let final = await statusOf();
    for (let i = 0; i < 60 && final.state === 'RUNNING'; i++) {
      await new Promise((r) => setTimeout(r, 500));
      final = await statusOf();
    }
    expect(final).toMatchObject({ state: 'COMPLETED', status: { stage: 'done', outcome: 'torn-down' } });

    // The Proxmox side, through the API with the lab's token: 9001 stays, 9002 and 9003 are gone.
    const [versionLine] = lab.output().match(/curl -k -H '[^']+' https:\/\/\S+\/api2\/json\/version/) ?? [];
    const resources = await run('bash', ['-c', `${versionLine!.replace('/version', '/cluster/resources?type=vm')} -s`]);
    const vmids = (JSON.parse(resources.stdout) as { data: Array<{ vmid?: number }> }).data.map((r) => r.vmid);
    expect(vmids).toContain(9001);
    expect(vmids).not.toContain(9002);
    expect(vmids).not.toContain(9003);
  });

  it('provisions from the CLI: a spec file, a NetBox record again (a rerun that changes nothing); a bad spec is refused before anything starts', async () => {
    const env = { TEMPORAL_ADDRESS: `127.0.0.1:${port}` };
    const dir = mkdtempSync(path.join(tmpdir(), 'ferry-spec-'));
    const spec = path.join(dir, 'cli-vm1.yaml');
    writeFileSync(
      spec,
      'name: cli-vm1\nvmid: 9200\nnode: pve2\ncores: 1\nmemoryMiB: 512\ndisks: [{ slot: scsi0, storage: local-lvm, sizeGiB: 1 }]\nnics: [{ slot: net0, network: vmbr1 }]\n',
    );
    const fromSpec = spawnFerry(['provision', '--spec', spec, '--wait'], env);
    expect(await fromSpec.exited).toBe(0);
    expect(fromSpec.output()).toContain(
      'provision-spec-cli-vm1 (provisionVm): COMPLETED\n  stage: done, outcome provisioned\n  VM 9200, cli-vm1, on pve2',
    );
    expect(fromSpec.output()).toMatch(/^ {4}create-vm +VM 9200: created \(cli-vm1 on pve2\)$/m);

    const bad = path.join(dir, 'bad.yaml');
    writeFileSync(bad, 'name: bad vm\nnode: pve2\ncores: 0\nmemoryMiB: 512\n');
    const refused = spawnFerry(['provision', '--spec', bad], env);
    expect(await refused.exited).toBe(2); // a bad input file is a usage error
    expect(refused.output()).toContain(`${bad} is not a valid VM spec:\n  - ${bad}: name: a DNS label`);
    expect(refused.output()).toContain(`  - ${bad}: cores: at least 1`);

    const [, web1NetboxId] = lab.output().match(/^ {2}lab-web1 +VM 9001 \S+ +provision-lab-\S+-(\d+)$/m) ?? [];
    const again = spawnFerry(['provision', '--netbox-id', web1NetboxId!, '--wait'], env);
    expect(await again.exited).toBe(0);
    expect(again.output()).toMatch(/^ {4}create-vm +VM 9001: adopted /m);
    expect(again.output()).not.toMatch(/: (created|updated)/);
  });

  it('stops cleanly on Ctrl-C', async () => {
    lab.child.kill('SIGINT');
    expect(await lab.exited).toBe(0);
    expect(lab.output()).toMatch(/lab: stopping/);
  });
});

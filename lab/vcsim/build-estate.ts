import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { parseConfig } from '../../src/config';
import { VsphereClient } from '../../src/vsphere';
import { findByInventoryPath } from '../../src/vsphere/discovery';
import { element, moRef, typed, type MoRef, type XmlContent } from '../../src/vsphere/envelope';
import { waitForTask } from '../../src/vsphere/tasks';
import { asMoRef } from '../../src/vsphere/read';
import { child } from '../../src/vsphere/xml';
import { nfsMigrationDir } from '../shared-paths';
import { toolPath } from '../tools';
import { guestImage } from '../guest-image/paths';
import type { GuestVmConfig } from '../guest-image/per-vm-config';
import { vmwareGuestImage } from '../vmware-guest/paths';
import {
  ESTATE,
  GUEST_VMS,
  guestVmConfig,
  NAMED_VMS,
  SCALE_DISK_BYTES,
  scaleVmName,
  vmwareFirmwareOf,
  type LabGuest,
  type LabGuestVariant,
  type NamedVmSpec,
} from './estate';
import { makeLabCertificates } from './tls';
import { startVcsim } from './vcsim-process';
import { fillVcsimGaps } from './vcsim-gaps';
import { diskFileName, vmConfigSpec, type NicNetwork, type VmCreateSpec } from './vm-spec';

const run = promisify(execFile);

/** Written in place of the build's state folder in the saved objects; replaced by the lab's on load. */
export const STATE_DIR_PLACEHOLDER = '@FERRY_LAB_STATE_DIR@';

/** A disk whose backing file the lab must place on its datastore. */
export interface ManifestDisk {
  fileName: string;
  capacityBytes: number;
  /** A VM's copy of the lab guest disk with these settings written in (else a patterned blank disk). */
  guest?: { variant: LabGuestVariant; config: GuestVmConfig };
}

export interface EstateManifest {
  extraVms: number;
  /** Datastore name → its folder, relative to the lab's state folder. */
  datastoreDirs: Record<string, string>;
  disks: ManifestDisk[];
  vmCount: number;
}

/** Where the lab keeps each datastore, relative to its state folder (the NFS one is shared with Proxmox). */
export function datastoreDirs(): Record<string, string> {
  return {
    [ESTATE.migrationDatastore]: path.relative('/s', nfsMigrationDir('/s')),
    [ESTATE.localDatastore]: path.join('vcsim', 'datastores', ESTATE.localDatastore),
  };
}

interface BuildContext {
  client: VsphereClient;
  folder: (name: string) => MoRef;
  pool: (host: string) => MoRef;
  host: (name: string) => MoRef;
  network: (name: string) => NicNetwork;
  /** The build's folder of a datastore. */
  datastoreDir: (datastore: string) => string;
}

async function find(client: VsphereClient, inventoryPath: string): Promise<MoRef> {
  const found = await findByInventoryPath(client.session, inventoryPath);
  if (!found) throw new Error(`estate builder: ${inventoryPath} not found`);
  return found;
}

/** Calls a `…_Task` method and waits for the task to succeed. */
async function runTask(client: VsphereClient, method: string, self: MoRef, params: XmlContent[]): Promise<void> {
  const response = await client.session.call(method, self, params);
  const task = asMoRef(child(response, 'returnval') ?? response, `${method} returnval`);
  await waitForTask(
    client.session,
    task,
    { step: method, method, object: `${self.type}:${self.value}` },
    { pollIntervalMs: 20 },
  );
}

/** PVLAN portgroups have no govc flag: AddDVPortgroup_Task with a PvlanSpec (DVPortgroupConfigSpec in WSDL order). */
async function addPvlanPortgroup(client: VsphereClient, dvs: MoRef, name: string, pvlanId: number): Promise<void> {
  await runTask(client, 'AddDVPortgroup_Task', dvs, [
    element(
      'spec',
      element('name', name),
      element('numPorts', 16),
      typed(
        'defaultPortConfig',
        'VMwareDVSPortSetting',
        typed(
          'vlan',
          'VmwareDistributedVirtualSwitchPvlanSpec',
          element('inherited', false),
          element('pvlanId', pvlanId),
        ),
      ),
      element('type', 'earlyBinding'),
    ),
  ]);
}

/** The virtual size of a guest variant's disk: the VM's disk capacity. */
export function guestDiskBytes(variant: LabGuestVariant): number {
  return vmwareFirmwareOf(variant) ? vmwareGuestImage().manifest.diskBytes : guestImage().manifest.diskBytes;
}

function namedVmSpec(ctx: BuildContext, vm: NamedVmSpec): VmCreateSpec {
  return {
    name: vm.name,
    guestId: vm.guestId,
    firmware: vm.firmware,
    cpus: vm.cpus,
    coresPerSocket: vm.coresPerSocket,
    memoryMb: vm.memoryMb,
    datastore: vm.datastore,
    homeDatastore: vm.homeDatastore,
    controller: vm.controller,
    disks: vm.disks.map((d) =>
      'guestImage' in d ? { bytes: guestDiskBytes(vm.guest!.variant) } : { bytes: d.gb * 1024 ** 3, mode: d.mode },
    ),
    nics: vm.nics.map((n) => ({ adapter: n.adapter, network: ctx.network(n.network), mac: n.mac })),
  };
}

/** `24` → `255.255.255.0`. */
function netmask(prefixLength: number): string {
  const bits = prefixLength === 0 ? 0 : (0xffffffff << (32 - prefixLength)) >>> 0;
  return [24, 16, 8, 0].map((shift) => (bits >>> shift) & 0xff).join('.');
}

/**
 * `govc vm.customize` arguments giving the VM its guest's hostname and addresses through vSphere guest
 * customization (CustomizeVM_Task, a fixed IP per NIC): vcsim applies it at the next power-on and then
 * reports it in `guest.net` / `guest.ipAddress` / `guest.hostName`, as VMware Tools would.
 */
export function customizeArgs(vm: { name: string; guest: LabGuest }): string[] {
  const args = ['vm.customize', '-vm', vm.name, '-type', 'Linux', '-name', vm.guest.hostname];
  let gatewaysEnded = false;
  for (const [i, a] of vm.guest.addresses.entries()) {
    const [ip, prefix] = a.address.split('/');
    args.push('-ip', ip!, '-netmask', netmask(Number(prefix)));
    // govc pairs the n-th -gateway with the n-th -ip.
    if (a.gateway && gatewaysEnded)
      throw new Error(`lab estate: ${vm.name} NIC ${i} has a gateway after a NIC without one`);
    if (a.gateway) args.push('-gateway', a.gateway);
    else gatewaysEnded = true;
  }
  return args;
}

/** Runs `fn` over `items`, `limit` at a time. */
async function inParallel<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

/**
 * Builds the lab estate in a fresh vcsim (govc for datastores, folders, the switch and its portgroups,
 * snapshots and templates; SOAP for what govc cannot do: a PVLAN portgroup, VMs with realistic device
 * labels, cores per socket, an RDM), saves it with `govc object.save` into `outDir/objects` and writes
 * `outDir/manifest.json` with the disks the lab must place as real VMDK files.
 */
export async function buildEstate(
  outDir: string,
  options: { extraVms: number; log?: (line: string) => void },
): Promise<EstateManifest> {
  const log = options.log ?? (() => undefined);
  const root = mkdtempSync(path.join(tmpdir(), 'ferry-estate-build-'));
  const dirs = datastoreDirs();
  for (const dir of Object.values(dirs)) mkdirSync(path.join(root, dir), { recursive: true });
  const certs = await makeLabCertificates(path.join(root, 'tls'));
  const password = randomBytes(12).toString('hex');
  const sim = await startVcsim({ certs, username: 'ferry', password, logFile: path.join(root, 'vcsim.log') });
  const config = parseConfig(
    { vsphere: { host: sim.host, port: sim.port, user: 'ferry', caFile: certs.caFile } },
    { VMWARE_PASSWORD: password },
    'estate builder',
  ).vsphere!;
  const client = new VsphereClient(config);
  const govcEnv = {
    ...process.env,
    GOVC_URL: `https://ferry:${password}@${sim.host}:${sim.port}/sdk`,
    GOVC_TLS_CA_CERTS: certs.caFile,
    GOVC_PERSIST_SESSION: 'false',
    GOVC_DATACENTER: ESTATE.datacenter,
  };
  const govc = async (...args: string[]) =>
    (await run(toolPath('govc'), args, { env: govcEnv, maxBuffer: 64 * 1024 * 1024 })).stdout;

  try {
    const started = performance.now();
    const dc = `/${ESTATE.datacenter}`;
    const allHosts = [`${dc}/host/${ESTATE.cluster}`, `${dc}/host/${ESTATE.standaloneHost}`];
    await govc(
      'datastore.create',
      '-type',
      'local',
      '-name',
      ESTATE.localDatastore,
      '-path',
      path.join(root, dirs[ESTATE.localDatastore]!),
      ...allHosts,
    );
    // The remote host is only recorded (vcsim serves the local folder); .invalid never resolves.
    await govc(
      'datastore.create',
      '-type',
      'nfs',
      '-name',
      ESTATE.migrationDatastore,
      '-remote-host',
      'nfs.ferry-lab.invalid',
      '-remote-path',
      '/export/migration',
      '-path',
      path.join(root, dirs[ESTATE.migrationDatastore]!),
      ...allHosts,
    );
    for (const f of ESTATE.folders) await govc('folder.create', `${dc}/vm/${f}`);
    await govc('dvs.create', '-num-uplinks', '2', ESTATE.switchName);
    await govc('dvs.add', '-dvs', ESTATE.switchName, '-pnic', 'vmnic1', ...ESTATE.clusterHosts);
    const P = ESTATE.portgroups;
    const pg = (name: string, ...flags: string[]) =>
      govc('dvs.portgroup.add', '-dvs', ESTATE.switchName, '-type', 'earlyBinding', '-nports', '16', ...flags, name);
    await pg(P.vlan100, '-vlan', '100');
    await pg(P.vlan200, '-vlan', '200');
    await pg(
      P.trunk,
      '-vlan-mode',
      'trunking',
      '-vlan-range',
      ESTATE.trunkRanges.map((r) => `${r.start}-${r.end}`).join(','),
    );
    await pg(P.untagged);
    const dvs = await find(client, `${dc}/network/${ESTATE.switchName}`);
    await addPvlanPortgroup(client, dvs, P.pvlan, ESTATE.pvlanId);
    log(
      `estate: datastores, folders, ${ESTATE.switchName} and portgroups in ${Math.round(performance.now() - started)} ms`,
    );

    const { inventory } = await client.discover({ scope: { datacenter: ESTATE.datacenter } });
    const refs = new Map<string, MoRef>();
    for (const f of ESTATE.folders) refs.set(`folder:${f}`, await find(client, `${dc}/vm/${f}`));
    for (const h of [...ESTATE.clusterHosts, ESTATE.standaloneHost]) {
      const clusterPath = h === ESTATE.standaloneHost ? `${dc}/host/${h}` : `${dc}/host/${ESTATE.cluster}`;
      refs.set(`host:${h}`, await find(client, `${clusterPath}/${h}`));
      refs.set(`pool:${h}`, await find(client, `${clusterPath}/Resources`));
    }
    const standard = await find(client, `${dc}/network/${ESTATE.standardNetwork}`);
    const get = (key: string) => {
      const r = refs.get(key);
      if (!r) throw new Error(`estate builder: no ${key}`);
      return r;
    };
    const ctx: BuildContext = {
      client,
      datastoreDir: (datastore) => path.join(root, dirs[datastore]!),
      folder: (name) => get(`folder:${name}`),
      pool: (host) => get(`pool:${host}`),
      host: (name) => get(`host:${name}`),
      network: (name) => {
        if (name === ESTATE.standardNetwork) return { kind: 'network', name, moid: standard.value };
        const found = inventory.portgroups.find((p) => p.name === name);
        if (!found?.switchUuid) throw new Error(`estate builder: portgroup ${name} not found`);
        return { kind: 'dvportgroup', name, portgroupKey: found.key, switchUuid: found.switchUuid };
      },
    };

    for (const vm of NAMED_VMS) {
      await createVmAt(ctx, namedVmSpec(ctx, vm), vm.folder, vm.host);
      if (vm.guest) await govc(...customizeArgs({ name: vm.name, guest: vm.guest }));
      if (vm.snapshot) await govc('snapshot.create', '-vm', vm.name, vm.snapshot);
      if (vm.template) await govc('vm.markastemplate', vm.name);
      if (vm.poweredOn) await govc('vm.power', '-on', vm.name);
    }
    log(`estate: ${NAMED_VMS.length} named VMs in ${Math.round(performance.now() - started)} ms`);

    const scale = Array.from({ length: options.extraVms }, (_, i) => i + 1);
    await inParallel(scale, 4, async (i) => {
      const host = ESTATE.clusterHosts[i % ESTATE.clusterHosts.length]!;
      const spec: VmCreateSpec = {
        name: scaleVmName(i),
        guestId: 'otherLinux64Guest',
        firmware: i % 2 === 0 ? 'efi' : 'bios',
        cpus: 2,
        memoryMb: 2048,
        datastore: ESTATE.migrationDatastore,
        homeDatastore: ESTATE.localDatastore,
        controller: 'pvscsi',
        disks: [{ bytes: SCALE_DISK_BYTES }],
        nics: [{ adapter: 'vmxnet3', network: ctx.network(i % 2 === 0 ? P.vlan200 : P.vlan100) }],
      };
      await createVmAt(ctx, spec, ESTATE.scaleFolder, host);
    });
    if (options.extraVms > 0)
      log(`estate: ${options.extraVms} scale VMs in ${Math.round(performance.now() - started)} ms`);

    const final = await client.discover({ scope: { datacenter: ESTATE.datacenter }, pageSize: 1000 });
    const objects = path.join(outDir, 'objects');
    await govc('object.save', '-d', objects);
    const rdms = NAMED_VMS.flatMap((vm) =>
      vm.disks.flatMap((d, i) =>
        'rdm' in d && d.rdm ? [{ fileName: diskFileName(vm.datastore, vm.name, i), lun: d.rdm }] : [],
      ),
    );
    fillVcsimGaps(objects, {
      uplinkPortgroupKeys: final.inventory.portgroups
        .filter((p) => p.name.startsWith(`${ESTATE.switchName}-DVUplinks`))
        .map((p) => p.key),
      rdms,
    });
    replaceInTree(objects, root, STATE_DIR_PLACEHOLDER);
    const guestDisks = new Map(
      GUEST_VMS.flatMap((vm) =>
        vm.disks.flatMap((d, i) =>
          'guestImage' in d
            ? [
                [
                  diskFileName(vm.datastore, vm.name, i),
                  { variant: vm.guest.variant, config: guestVmConfig(vm) },
                ] as const,
              ]
            : [],
        ),
      ),
    );
    const manifest: EstateManifest = {
      extraVms: options.extraVms,
      datastoreDirs: dirs,
      disks: final.inventory.vms.flatMap((vm) =>
        vm.disks
          .filter((d) => !rdms.some((r) => r.fileName === d.fileName))
          .map((d) => {
            const guest = guestDisks.get(d.fileName);
            return { fileName: d.fileName, capacityBytes: d.capacityBytes, ...(guest ? { guest } : {}) };
          }),
      ),
      vmCount: final.inventory.vms.length,
    };
    const placedGuests = manifest.disks.filter((d) => d.guest).length;
    if (placedGuests !== guestDisks.size)
      throw new Error(`estate builder: ${guestDisks.size} guest disks in the estate, ${placedGuests} found on the VMs`);
    writeFileSync(path.join(outDir, 'manifest.json'), JSON.stringify(manifest, null, 1));
    log(`estate: saved ${manifest.vmCount} VMs in ${Math.round(performance.now() - started)} ms`);
    return manifest;
  } catch (err) {
    let tail = '';
    try {
      tail = readFileSync(path.join(root, 'vcsim.log'), 'utf8').split('\n').slice(-15).join('\n');
    } catch {
      // no log to show
    }
    throw new Error(`building the vcsim estate failed: ${(err as Error).message}\nvcsim log (last lines):\n${tail}`, {
      cause: err,
    });
  } finally {
    await client.close().catch(() => undefined);
    await sim.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

/** CreateVM_Task: _this (the folder), config, pool, host. */
function createVmAt(ctx: BuildContext, spec: VmCreateSpec, folder: string, host: string): Promise<void> {
  // vcsim makes the VM's folder on its home datastore only; disks elsewhere need theirs made first.
  if (spec.homeDatastore && spec.homeDatastore !== spec.datastore)
    mkdirSync(path.join(ctx.datastoreDir(spec.datastore), spec.name), { recursive: true });
  return runTask(ctx.client, 'CreateVM_Task', ctx.folder(folder), [
    vmConfigSpec(spec),
    moRef('pool', ctx.pool(host)),
    moRef('host', ctx.host(host)),
  ]);
}

/** Replaces a literal string in every file under `dir` (the build's state folder in saved paths). */
export function replaceInTree(dir: string, from: string, to: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) replaceInTree(full, from, to);
    else {
      const text = readFileSync(full, 'utf8');
      if (text.includes(from)) writeFileSync(full, text.split(from).join(to));
    }
  }
}

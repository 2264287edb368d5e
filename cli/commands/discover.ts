import type { Command } from 'commander';
import type { FerryConfig } from '../../src/config';
import type { Inventory, PortgroupRecord, VmNic, VmRecord, Vlan } from '../../src/domain/inventory';
import {
  assessInventory,
  describeRanges,
  type InventoryAssessment,
  type MigrationRules,
} from '../../src/domain/migration';
import type { DiscoveryResult, DiscoveryScope } from '../../src/vsphere';
import { formatTable } from '../table';
import type { GlobalOptions } from '../client';
import { UsageError } from '../errors';
import { intOption } from '../int-option';

interface DiscoverFlags {
  json?: boolean;
  datacenter?: string;
  folder?: string[];
  cluster?: string[];
  pageSize?: number;
}

/** Rules used to judge what translates: the configured migration section, else ferry's defaults. */
function migrationRules(config: FerryConfig): { rules: MigrationRules; assumed: boolean } {
  const m = config.migration;
  const rules: MigrationRules = {
    vmidBase: m?.vmidBase ?? 100_000,
    network: m?.network ?? { zone: 'ferry', bridge: 'vmbr0', vnetPrefix: 'v', overrides: [] },
    nicModel: m?.nicModel ?? 'virtio',
    diskBus: m?.diskBus ?? 'scsi',
    efiStorage: m?.efiStorage ?? m?.targetStorage ?? 'local-lvm',
  };
  return { rules, assumed: !m };
}

function describeVlan(vlan: Vlan, uplink: boolean): string {
  if (uplink) return 'uplink';
  switch (vlan.kind) {
    case 'access':
      return `vlan ${vlan.vlanId}`;
    case 'trunk':
      return `trunk ${describeRanges(vlan.ranges)}`;
    case 'pvlan':
      return `pvlan ${vlan.pvlanId}`;
    case 'none':
      return 'untagged';
  }
}

function describeNic(nic: VmNic, portgroups: Map<string, PortgroupRecord>): string {
  const b = nic.backing;
  const where =
    b.kind === 'dvportgroup'
      ? (() => {
          const pg = portgroups.get(b.portgroupKey);
          return pg ? `${pg.name} (${describeVlan(pg.vlan, pg.uplink)})` : `${b.portgroupKey} (portgroup not found)`;
        })()
      : b.kind === 'network'
        ? `${b.networkName} (standard switch)`
        : b.kind === 'opaque'
          ? `${b.opaqueNetworkId} (${b.opaqueNetworkType})`
          : `(${b.backingType})`;
  return `${nic.deviceType} ${nic.macAddress} ${where}`;
}

/** The guest's addresses on this NIC and where they were read, e.g. ` 198.51.100.21 (from tools)`; '' when unknown. */
function describeGuestAddresses(vm: VmRecord, nic: VmNic): string {
  const found = vm.guestAddresses?.find((g) => g.mac === nic.macAddress);
  return found ? ` ${found.addresses.join(', ')} (from ${found.source})` : '';
}

function gib(bytes: number): string {
  if (bytes < 1024 ** 3) return `${Math.round(bytes / 1024 ** 2)} MiB`;
  const g = bytes / 1024 ** 3;
  return `${Number.isInteger(g) ? g : g.toFixed(1)} GiB`;
}

export function formatInventory(inventory: Inventory): string {
  const portgroups = new Map(inventory.portgroups.map((p) => [p.key, p]));
  const vmRows = inventory.vms.map((vm) => [
    `${vm.name}\n${vm.moid}${vm.template ? '\ntemplate' : ''}${vm.hasSnapshot ? '\nsnapshots' : ''}${vm.guestHostName ? `\nguest ${vm.guestHostName}` : ''}`,
    `${vm.powerState.replace('powered', '').toLowerCase()}`,
    vm.firmware,
    `${vm.numCpu} (${vm.numCoresPerSocket}/socket)\n${vm.memoryMb} MB`,
    `${vm.cluster?.name ?? '-'}\n${vm.host?.name ?? '-'}`,
    vm.nics.map((n) => `${describeNic(n, portgroups)}${describeGuestAddresses(vm, n)}`).join('\n') || '-',
    vm.disks
      .map(
        (d) =>
          `${gib(d.capacityBytes)} ${d.fileName}${d.diskMode !== 'persistent' ? ` ${d.diskMode}` : ''}${d.rdm ? ` RDM ${d.rdm.compatibilityMode}` : ''}`,
      )
      .join('\n') || '-',
  ]);
  const pgRows = inventory.portgroups.map((p) => [p.name, p.key, p.switchName, describeVlan(p.vlan, p.uplink)]);
  return [
    `VMs (${inventory.vms.length}) in ${inventory.vcenter}`,
    formatTable(
      ['VM', 'POWER', 'FIRMWARE', 'CPU / MEMORY', 'CLUSTER / HOST', 'NICS (VLAN) GUEST ADDRESSES', 'DISKS'],
      vmRows,
    ),
    '',
    `Distributed portgroups (${inventory.portgroups.length})`,
    formatTable(['PORTGROUP', 'KEY', 'SWITCH', 'VLAN'], pgRows),
  ].join('\n');
}

export function formatNotTranslated(assessment: InventoryAssessment, result: DiscoveryResult): string {
  const lines: string[] = [];
  for (const vm of assessment.vms) {
    for (const r of vm.refusals)
      lines.push(`  ${vm.name} (${vm.moid}): ${r.subject === vm.name ? '' : `${r.subject}: `}${r.reason}`);
  }
  for (const s of result.skipped) lines.push(`  ${s.name ?? s.moid} (${s.moid}): not readable: ${s.reason}`);
  const networks = assessment.untranslatedNetworks.map((n) => `  ${n.network}: ${n.reason}`);
  return [
    `Not translated automatically (${lines.length})`,
    ...(lines.length > 0 ? lines : ['  (nothing)']),
    ...(networks.length > 0 ? ['', `Networks without an automatic translation (${networks.length})`, ...networks] : []),
  ].join('\n');
}

export function registerDiscover(program: Command): void {
  program
    .command('discover')
    .description(
      'read the VMs and distributed portgroups from vCenter and list what will not be translated automatically',
    )
    .option('--json', 'print inventory, refusals and figures as JSON')
    .option('--datacenter <name>', 'only this datacenter (name or inventory path)')
    .option(
      '--folder <path...>',
      "only VMs in these folders: inventory paths (/DC0/vm/apps, as plan and migrate take them) or paths below the datacenter's VM folder (apps)",
    )
    .option(
      '--cluster <path...>',
      "only VMs in these clusters or hosts: inventory paths (/DC0/host/DC0_C0) or paths below the datacenter's host folder",
    )
    .option('--page-size <n>', 'objects per PropertyCollector page', intOption(1, 10_000))
    .action(async (flags: DiscoverFlags, command: Command) => {
      // Loaded when the command runs, so that `ferry --help` and the other commands do not pay for it.
      const { loadConfig } = require('../../src/config') as typeof import('../../src/config');
      const { VsphereClient } = require('../../src/vsphere') as typeof import('../../src/vsphere');
      const config = loadConfig(command.optsWithGlobals<GlobalOptions>().config, process.env, {
        sections: ['vsphere', 'migration'],
      });
      if (!config.vsphere) {
        throw new UsageError(
          'no vCenter configured: set VMWARE_HOST, VMWARE_USER and VMWARE_PASSWORD, or a vsphere section in ferry.yaml',
        );
      }
      const pageSize = flags.pageSize;
      const configured = config.vsphere.discovery;
      const scoped = flags.datacenter || flags.folder || flags.cluster;
      const scope: DiscoveryScope = scoped
        ? { datacenter: flags.datacenter ?? configured.datacenter, folders: flags.folder, clusters: flags.cluster }
        : { datacenter: configured.datacenter, folders: configured.folders, clusters: configured.clusters };

      const client = new VsphereClient(config.vsphere);
      const started = performance.now();
      let result: DiscoveryResult;
      try {
        result = await client.discover({ scope, pageSize });
      } finally {
        await client.close();
      }
      const wallMs = Math.round(performance.now() - started);
      const { rules, assumed } = migrationRules(config);
      const assessment = assessInventory(result.inventory, rules);
      const stats = {
        pages: result.pages,
        roundTrips: client.stats.roundTrips,
        bytesReceived: client.stats.bytesReceived,
        wallMs,
      };

      if (flags.json) {
        const notTranslated = assessment.vms.flatMap((vm) =>
          vm.refusals.map((r) => ({ vm: vm.name, moid: vm.moid, ...r })),
        );
        console.log(
          JSON.stringify(
            {
              inventory: result.inventory,
              skipped: result.skipped,
              notTranslated,
              untranslatedNetworks: assessment.untranslatedNetworks,
              stats,
            },
            null,
            2,
          ),
        );
        return;
      }
      console.log(formatInventory(result.inventory));
      console.log('');
      console.log(formatNotTranslated(assessment, result));
      if (assumed)
        console.log("\n(no migration section configured: judged with ferry's default rules, vmidBase 100000)");
      console.log(
        `\n${stats.pages} page(s), ${stats.roundTrips} round trips, ${stats.bytesReceived} bytes, ${wallMs} ms`,
      );
    });
}

import { z } from 'zod';
import type { ActivityDeps } from '../../activities';
import type { DnsClient } from '../../src/dns/client';
import type { NetboxClient } from '../../src/netbox/client';
import type { SimulatorAdmin } from '../proxmox-sim/admin-client';
import { LAB_NETBOX } from '../netbox-seed';
import type { ChaosObservation, MigrationOutcome, ProvisionOutcome, PveVm, VmwareVm } from './invariants';
import { CHAOS_TAG } from './workload';

/** Config keys that hold a disk (not a CD): the volume id is the value up to the first comma. */
const DISK_KEY = /^(scsi|virtio|sata|ide|efidisk|tpmstate|unused)\d+$/;

/** A Proxmox VM from the simulator's state: its name, MACs per NIC slot and the volumes its config holds. */
export function pveVmOf(vm: { vmid: number; config: Record<string, unknown> }): PveVm {
  const macs: Record<string, string> = {};
  const volumes: string[] = [];
  for (const [key, raw] of Object.entries(vm.config)) {
    const value = String(raw);
    if (/^net\d+$/.test(key)) {
      const mac = /=([0-9A-Fa-f:]{17})/.exec(value)?.[1];
      if (mac) macs[key] = mac.toUpperCase();
    } else if (DISK_KEY.test(key) && !/media=cdrom/.test(value)) {
      const volid = value.split(',')[0]!;
      if (volid !== 'none' && !volid.startsWith('/') && volid.includes(':')) volumes.push(volid);
    }
  }
  return { vmid: vm.vmid, name: String(vm.config.name ?? ''), macs, volumes };
}

export async function vmwareVms(deps: ActivityDeps): Promise<VmwareVm[]> {
  const { inventory } = await deps.vsphere!.discover();
  return inventory.vms.map((v) => ({
    name: v.name,
    powerState: v.powerState,
    macs: v.nics.map((n) => n.macAddress.toLowerCase()),
    disks: v.disks.length,
  }));
}

const netboxVm = z
  .object({ id: z.number(), name: z.string(), status: z.object({ value: z.string() }).passthrough() })
  .passthrough();
const netboxAddress = z
  .object({
    address: z.string(),
    dns_name: z.string().optional().nullable(),
    assigned_object: z
      .object({ virtual_machine: z.object({ name: z.string() }).passthrough().optional() })
      .passthrough()
      .optional()
      .nullable(),
  })
  .passthrough();

function reverseName(ip: string): string {
  return `${ip.split('.').reverse().join('.')}.in-addr.arpa`;
}

export interface ObserveInput {
  deps: ActivityDeps;
  admin: SimulatorAdmin;
  nb: NetboxClient;
  dns: DnsClient;
  vmwareBefore: VmwareVm[];
  migrations: MigrationOutcome[];
  provisions: ProvisionOutcome[];
}

/** Reads what the run left: the simulator's state, storages and task log, vCenter, NetBox and DNS. */
export async function observe(input: ObserveInput): Promise<ChaosObservation> {
  const { deps, admin, nb, dns } = input;
  const state = (await admin.state()) as {
    nodes: Array<string | { node: string }>;
    vms: Array<{ vmid: number; node: string; config: Record<string, unknown> }>;
  };
  const nodes = state.nodes.map((n) => (typeof n === 'string' ? n : n.node));
  const volumes: Array<{ volid: string; vmid: number }> = [];
  for (const node of nodes) {
    for (const storage of ['local-lvm', 'local']) {
      const items = await deps.proxmox!.storage.content(node, storage, { content: 'images' }).catch(() => []);
      for (const item of items)
        if (item.vmid !== undefined && !volumes.some((v) => v.volid === item.volid))
          volumes.push({ volid: item.volid, vmid: Number(item.vmid) });
    }
  }
  const log = await admin.log();
  const tasks = log.tasks
    .filter((t) => t.endMs !== undefined)
    .map((t) => ({ type: t.type, vmid: Number(t.id), ok: t.exitstatus === 'OK' }));

  const vms = (await nb.http.list('api/virtualization/virtual-machines/', { tag: CHAOS_TAG }, netboxVm)).map((v) => ({
    id: v.id,
    name: v.name,
    status: v.status.value,
  }));
  const addresses = (await nb.http.list('api/ipam/ip-addresses/', { parent: LAB_NETBOX.prefix }, netboxAddress)).map(
    (a) => ({
      address: a.address,
      vmName: a.assigned_object?.virtual_machine?.name,
      dnsName: a.dns_name ?? undefined,
    }),
  );

  const names = new Set<string>();
  const ips = new Set<string>();
  for (const p of input.provisions) {
    if (p.fqdn) names.add(p.fqdn);
    if (p.address) ips.add(p.address.split('/')[0]!);
  }
  for (const a of addresses) {
    if (a.dnsName) names.add(a.dnsName);
    ips.add(a.address.split('/')[0]!);
  }
  const a: Record<string, string[]> = {};
  const ptr: Record<string, string[]> = {};
  for (const name of names) a[name] = await dns.lookup(name, 'A').catch(() => []);
  for (const ip of ips) ptr[ip] = await dns.lookup(reverseName(ip), 'PTR').catch(() => []);

  return {
    pve: { vms: state.vms.map(pveVmOf), volumes, tasks },
    vmware: { before: input.vmwareBefore, after: await vmwareVms(deps) },
    migrations: input.migrations,
    provisions: input.provisions,
    netbox: { vms, addresses },
    dns: { a, ptr },
  };
}

/**
 * The chaos run's invariants, checked on what the run left behind (read from the simulators, vCenter,
 * NetBox and DNS by observe.ts). Pure: unit-tested with crafted states that break each one.
 */

export interface PveVm {
  vmid: number;
  name: string;
  /** MAC per NIC slot (`net0` → `BC:24:11:…`). */
  macs: Record<string, string>;
  /** Volume ids the config references (`local-lvm:vm-9100-disk-0`). */
  volumes: string[];
}

export interface VmwareVm {
  name: string;
  powerState: string;
  macs: string[];
  disks: number;
}

export interface MigrationOutcome {
  name: string;
  workflowId: string;
  vmid?: number;
  /** undefined: the workflow gave no outcome (still running, failed without one, lost). */
  outcome?: string;
  /** Action kinds the plan (dry run, before the wave) listed, and the ones the workflow recorded. */
  planned?: string[];
  recorded?: string[];
}

export interface ProvisionOutcome {
  name: string;
  workflowId: string;
  vmid?: number;
  outcome?: string;
  /** What the result says of the VM's creation (`created`, `unchanged`, …), when it says anything. */
  createStep?: string;
  address?: string;
  fqdn?: string;
  /** Torn down by the run (asked for): then its outcome, or undefined when none came. */
  teardown?: { asked: true; outcome?: string; deleteStep?: string };
}

export interface ChaosObservation {
  pve: {
    vms: PveVm[];
    /** Every disk volume on the storages, with the VMID it belongs to. */
    volumes: Array<{ volid: string; vmid: number }>;
    /** Finished tasks from the simulator's log. */
    tasks: Array<{ type: string; vmid: number; ok: boolean }>;
  };
  vmware: { before: VmwareVm[]; after: VmwareVm[] };
  migrations: MigrationOutcome[];
  provisions: ProvisionOutcome[];
  netbox: {
    vms: Array<{ id: number; name: string; status: string }>;
    addresses: Array<{ address: string; vmName?: string; dnsName?: string }>;
  };
  dns: { a: Record<string, string[]>; ptr: Record<string, string[]> };
}

export interface InvariantRow {
  invariant: string;
  count: number;
  details: string[];
}

function repeated<T>(items: readonly T[], key: (t: T) => string): Array<[string, number]> {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return [...counts].filter(([, n]) => n > 1);
}

const row = (invariant: string, details: string[]): InvariantRow => ({ invariant, count: details.length, details });

function duplicateVms(o: ChaosObservation): InvariantRow {
  return row(
    'duplicate VMs (Proxmox)',
    repeated(o.pve.vms, (v) => v.name).map(([name, n]) => `${n} Proxmox VMs named ${name}`),
  );
}

/** A volume of an existing VM that its config does not reference is a second copy some retry made; two VMs on one volume, a shared disk. */
function duplicateDisks(o: ChaosObservation): InvariantRow {
  const byVmid = new Map(o.pve.vms.map((v) => [v.vmid, v]));
  const details: string[] = [];
  for (const { volid, vmid } of o.pve.volumes) {
    const vm = byVmid.get(vmid);
    if (vm && !vm.volumes.includes(volid)) details.push(`${volid}: on storage, not in VM ${vmid}'s config`);
  }
  const refs = o.pve.vms.flatMap((v) => v.volumes.map((volid) => ({ volid, vmid: v.vmid })));
  for (const [volid, n] of repeated(refs, (r) => r.volid)) details.push(`${volid}: referenced by ${n} VMs`);
  return row('duplicate disks', details);
}

function duplicateNics(o: ChaosObservation): InvariantRow {
  const nics = o.pve.vms.flatMap((v) =>
    Object.entries(v.macs).map(([slot, mac]) => ({ at: `${v.vmid}/${slot}`, mac: mac.toUpperCase() })),
  );
  return row(
    'duplicate NICs (MAC)',
    repeated(nics, (n) => n.mac).map(([mac, n]) => `${mac} on ${n} NICs`),
  );
}

function duplicateAddresses(o: ChaosObservation): InvariantRow {
  const bare = o.netbox.addresses.map((a) => ({ ...a, ip: a.address.split('/')[0]! }));
  const details = repeated(bare, (a) => a.ip).map(([ip, n]) => `${ip} ${n} times in NetBox`);
  const perVm = bare.filter((a) => a.vmName);
  for (const [vm, n] of repeated(perVm, (a) => a.vmName!)) details.push(`${vm} has ${n} addresses`);
  return row('duplicate addresses', details);
}

function duplicateDnsRecords(o: ChaosObservation): InvariantRow {
  const details = [
    ...Object.entries(o.dns.a)
      .filter(([, v]) => v.length > 1)
      .map(([name, v]) => `${name} A ${v.join(', ')}`),
    ...Object.entries(o.dns.ptr)
      .filter(([, v]) => v.length > 1)
      .map(([ip, v]) => `${ip} PTR ${v.join(', ')}`),
  ];
  return row('duplicate DNS records', details);
}

function withoutOutcome(o: ChaosObservation): InvariantRow {
  return row('VMs without an outcome', [
    ...o.migrations.filter((m) => !m.outcome).map((m) => `${m.name} (${m.workflowId}): migration`),
    ...o.provisions.filter((p) => !p.outcome).map((p) => `${p.name} (${p.workflowId}): provision`),
    ...o.provisions.filter((p) => p.teardown && !p.teardown.outcome).map((p) => `${p.name}: teardown`),
  ]);
}

/** A VMware VM whose cutover did not happen must look as it did before the run (a vMotion to the NFS datastore is allowed: same disks). */
function vmwareChanged(o: ChaosObservation): InvariantRow {
  const cutOver = new Set(o.migrations.filter((m) => m.outcome === 'migrated').map((m) => m.name));
  const after = new Map(o.vmware.after.map((v) => [v.name, v]));
  const details: string[] = [];
  for (const before of o.vmware.before) {
    if (cutOver.has(before.name)) continue;
    const now = after.get(before.name);
    if (!now) details.push(`${before.name}: gone from vCenter`);
    else if (now.powerState !== before.powerState)
      details.push(`${before.name}: ${before.powerState} → ${now.powerState}`);
    else if (now.disks !== before.disks || [...now.macs].sort().join() !== [...before.macs].sort().join())
      details.push(`${before.name}: disks or NICs changed`);
  }
  return row('VMware VMs changed though not cut over', details);
}

function recordsLost(o: ChaosObservation): InvariantRow {
  const details: string[] = [];
  const pveVmids = new Set(o.pve.vms.map((v) => v.vmid));
  for (const m of o.migrations.filter((m) => m.outcome === 'migrated')) {
    if (m.vmid === undefined || !pveVmids.has(m.vmid))
      details.push(`${m.name}: migrated, but VM ${m.vmid} is not on Proxmox`);
  }
  const netboxNames = new Set(o.netbox.vms.map((v) => v.name));
  for (const p of o.provisions.filter((p) => p.outcome === 'provisioned' && !p.teardown)) {
    const ip = p.address?.split('/')[0];
    if (p.vmid === undefined || !pveVmids.has(p.vmid))
      details.push(`${p.name}: provisioned, but VM ${p.vmid} is not on Proxmox`);
    if (!netboxNames.has(p.name)) details.push(`${p.name}: provisioned, but gone from NetBox`);
    if (!ip || !o.netbox.addresses.some((a) => a.address.split('/')[0] === ip))
      details.push(`${p.name}: address ${p.address} not in NetBox`);
    if (p.fqdn && ip && !(o.dns.a[p.fqdn] ?? []).includes(ip)) details.push(`${p.fqdn}: A record for ${ip} missing`);
    if (p.fqdn && ip && !(o.dns.ptr[ip] ?? []).some((n) => n.replace(/\.$/, '') === p.fqdn!.replace(/\.$/, '')))
      details.push(`${ip}: PTR to ${p.fqdn} missing`);
  }
  return row('records lost', details);
}

function planVsRecorded(o: ChaosObservation): InvariantRow {
  const details: string[] = [];
  for (const m of o.migrations.filter((m) => m.outcome === 'migrated' && m.planned)) {
    const planned = (m.planned ?? []).join(', ');
    const recorded = (m.recorded ?? []).join(', ');
    if (planned !== recorded) details.push(`${m.name}: planned [${planned}], recorded [${recorded}]`);
  }
  return row('plan ≠ recorded actions', details);
}

/** An action's kind: actions are compared as their JSON (`{"kind":"create-vm",…}`) or given by kind alone. */
function kindOf(action: string): string {
  return action.startsWith('{') ? String((JSON.parse(action) as { kind?: unknown }).kind) : action;
}

/** What results say was done by this run vs what the simulator's task log shows this run did (every VMID is new to the run). */
function resultVsLog(o: ChaosObservation): InvariantRow {
  const okTasks = (type: string, vmid: number | undefined) =>
    o.pve.tasks.filter((t) => t.type === type && t.vmid === vmid && t.ok).length;
  const details: string[] = [];
  for (const p of o.provisions.filter((p) => p.vmid !== undefined && p.createStep)) {
    const created = okTasks('qmcreate', p.vmid) > 0;
    if (created !== (p.createStep === 'created'))
      details.push(
        `${p.name}: result says create-vm ${p.createStep}, the simulator log ${created ? 'shows' : 'has no'} qmcreate of VM ${p.vmid}`,
      );
    const deleteStep = p.teardown?.deleteStep;
    if (deleteStep) {
      const destroyed = okTasks('qmdestroy', p.vmid) > 0;
      if (destroyed !== (deleteStep === 'done'))
        details.push(
          `${p.name}: result says delete ${deleteStep}, the simulator log ${destroyed ? 'shows' : 'has no'} qmdestroy of VM ${p.vmid}`,
        );
    }
  }
  for (const m of o.migrations.filter((m) => m.vmid !== undefined && m.recorded)) {
    const created = okTasks('qmcreate', m.vmid) > 0;
    if (created !== m.recorded!.some((a) => kindOf(a) === 'create-vm'))
      details.push(
        `${m.name}: recorded actions ${created ? 'lack' : 'include'} create-vm, the simulator log ${created ? 'shows' : 'has no'} qmcreate of VM ${m.vmid}`,
      );
  }
  return row('result ≠ simulator log', details);
}

export function checkInvariants(o: ChaosObservation): InvariantRow[] {
  return [
    duplicateVms(o),
    duplicateDisks(o),
    duplicateNics(o),
    duplicateAddresses(o),
    duplicateDnsRecords(o),
    withoutOutcome(o),
    vmwareChanged(o),
    recordsLost(o),
    planVsRecorded(o),
    resultVsLog(o),
  ];
}

/** The table printed at the end (a count per invariant, then the first details of each that is not 0). */
export function invariantTable(rows: readonly InvariantRow[]): string {
  const width = Math.max(...rows.map((r) => r.invariant.length));
  const lines = ['invariant'.padEnd(width) + '  count', '-'.repeat(width + 7)];
  for (const r of rows) lines.push(`${r.invariant.padEnd(width)}  ${String(r.count).padStart(5)}`);
  for (const r of rows.filter((r) => r.count > 0)) {
    lines.push(
      '',
      `${r.invariant}:`,
      ...r.details.slice(0, 10).map((d) => `  ${d}`),
      ...(r.details.length > 10 ? [`  … and ${r.details.length - 10} more`] : []),
    );
  }
  return lines.join('\n');
}

import { type ProxmoxApi } from './api';
import { VmConfigApi } from './config';
import { formatPropertyString } from './property-string';
import { ProxmoxInputError } from './errors';
import { flag } from './quirks';
import type { NicSpec } from '../domain/pve-vm-spec';
import { parseNic, type Nic } from '../domain/pve-nic';

export { NIC_MODELS, type NicModel, type NicSpec } from '../domain/pve-vm-spec';
export { parseNic, type Nic } from '../domain/pve-nic';

/**
 * NICs (`netN`), as Ansible's proxmox_nic handles them: the existing MAC is kept unless one is given
 * (changing it would change the guest's interface), and the config is written only when the NIC differs.
 * The spec types live in src/domain (domain rules build them); only this module writes them as PVE values.
 */

function nicOptions(spec: NicSpec): Record<string, string> {
  const o: Record<string, string | undefined> = {
    bridge: spec.bridge,
    firewall: flag(spec.firewall),
    link_down: flag(spec.linkDown),
    mtu: spec.mtu?.toString(),
    queues: spec.queues?.toString(),
    rate: spec.rate?.toString(),
    tag: spec.tag?.toString(),
    trunks: spec.trunks?.join(';'),
  };
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Record<string, string>;
}

/** The `netN` value: `model=MAC,bridge=…,tag=…` (no MAC: PVE generates one). */
export function formatNic(spec: NicSpec): string {
  const model = spec.model ?? 'virtio';
  const head = spec.macaddr ? `${model}=${spec.macaddr.toUpperCase()}` : model;
  return [head, formatPropertyString(nicOptions(spec))].filter(Boolean).join(',');
}

const sameOptions = (a: Record<string, string>, b: Record<string, string>) =>
  Object.keys(a).length === Object.keys(b).length && Object.entries(a).every(([k, v]) => b[k] === v);

export class NicsApi {
  private readonly config: VmConfigApi;

  constructor(api: ProxmoxApi) {
    this.config = new VmConfigApi(api);
  }

  async list(node: string, vmid: number): Promise<Record<string, Nic>> {
    const { values } = await this.config.get(node, vmid);
    return Object.fromEntries(
      Object.entries(values)
        .filter(([k]) => /^net\d+$/.test(k))
        .map(([k, v]) => [k, parseNic(v)]),
    );
  }

  /** Creates or updates `net<index>`; returns whether it wrote and the NIC's MAC afterwards. */
  async set(node: string, vmid: number, index: number, spec: NicSpec): Promise<{ changed: boolean; macaddr: string }> {
    const key = nicKey(index);
    const config = await this.config.get(node, vmid);
    const current = config.values[key] === undefined ? undefined : parseNic(config.values[key]!);
    const model = spec.model ?? 'virtio';
    const macaddr = spec.macaddr?.toUpperCase() ?? current?.macaddr;
    const options = nicOptions(spec);
    if (current && current.model === model && current.macaddr === macaddr && sameOptions(current.options, options)) {
      return { changed: false, macaddr: current.macaddr };
    }
    const value = formatNic({ ...spec, model, ...(macaddr ? { macaddr } : {}) });
    await this.config.update(node, vmid, { set: { [key]: value }, digest: config.digest });
    const written = (await this.config.get(node, vmid)).values[key];
    return { changed: true, macaddr: written ? parseNic(written).macaddr : (macaddr ?? '') };
  }

  /** Writes `slot` as exactly this NIC (MAC included) when its value differs; returns whether it wrote. */
  async ensure(node: string, vmid: number, slot: string, spec: NicSpec): Promise<{ changed: boolean }> {
    const { changed } = await this.config.ensure(node, vmid, { [slot]: formatNic(spec) });
    return { changed: changed.length > 0 };
  }

  async remove(node: string, vmid: number, index: number): Promise<{ changed: boolean }> {
    const key = nicKey(index);
    const config = await this.config.get(node, vmid);
    if (config.values[key] === undefined) return { changed: false };
    await this.config.update(node, vmid, { delete: [key], digest: config.digest });
    return { changed: true };
  }
}

function nicKey(index: number): string {
  if (!Number.isInteger(index) || index < 0 || index > 31)
    throw new ProxmoxInputError(`NIC index must be 0–31, got ${index}`);
  return `net${index}`;
}

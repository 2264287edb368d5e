import { parsePropertyString } from './pve-property-string';
import { NIC_MODELS } from './pve-vm-spec';

/** A NIC (`netN`) as read from a VM config: its model, its MAC (upper case) and its other options as written. */
export interface Nic {
  model: string;
  macaddr: string;
  options: Record<string, string>;
}

/** `virtio=BC:24:11:…,bridge=vmbr0,tag=10` → model, MAC and the other options. */
export function parseNic(value: string): Nic {
  const parts = parsePropertyString(value, 'model');
  let model = parts.model ?? '';
  let macaddr = parts.macaddr ?? '';
  const options: Record<string, string> = {};
  for (const [key, v] of Object.entries(parts)) {
    if ((NIC_MODELS as readonly string[]).includes(key)) [model, macaddr] = [key, v];
    else if (key !== 'model' && key !== 'macaddr') options[key] = v;
  }
  return { model, macaddr: macaddr.toUpperCase(), options };
}

import type { Cluster } from './cluster';
import { loadSubset, type ParamSchema } from './schema/subset';
import { schemaFor } from './schema/validate';

/**
 * Config values typed as PVE's JSON has them (qemu-server's parse_vm_config runs check_type on every
 * value): integers and booleans become numbers (`int()`, `1`/`0`), `number` options stay strings (the
 * regex match keeps Perl's string), everything else is a string.
 */
/**
 * confdesc keys the schema may leave out (json_config_properties skips them in 8.4): only snaptime is not
 * a string.
 */
const INTERNAL_TYPES: Record<string, string> = { snaptime: 'integer' };

export function typedConfig(cluster: Cluster, config: Record<string, string>): Record<string, string | number> {
  // The GET's `returns` lists the keys only snapshots have (snaptime, vmstate, runningmachine…) too.
  const endpoint = loadSubset(cluster.flavour).endpoints['/nodes/{node}/qemu/{vmid}/config']!;
  const returned = (endpoint.GET!.returns as { properties: Record<string, ParamSchema> }).properties;
  const accepted = endpoint.PUT!.parameters!.properties!;
  const out: Record<string, string | number> = {};
  for (const [key, value] of Object.entries(config)) {
    const type = INTERNAL_TYPES[key] ?? (schemaFor(returned, key) ?? schemaFor(accepted, key))?.type;
    out[key] = (type === 'integer' || type === 'boolean') && /^-?\d+$/.test(value) ? Number(value) : value;
  }
  return out;
}

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { SIMULATED_ENDPOINTS } from '../../../lab/proxmox-sim/schema/endpoints';
import { perlPatternToRegExp } from '../../../lab/proxmox-sim/schema/perl-pattern';
import {
  extractSubset,
  findSharedSchemaDir,
  FLAVOURS,
  loadSubset,
  type Flavour,
  type ParamSchema,
} from '../../../lab/proxmox-sim/schema/subset';

/**
 * The schema subset committed in the project must be exactly the official dumps' entries for the
 * simulated endpoints. The full dumps are committed as test fixtures (test/fixtures/pve-api), and held
 * to the shared folder's files whenever that folder is beside the clone.
 */
const FIXTURES = path.join(__dirname, '..', '..', 'fixtures', 'pve-api');
const officialDump = (file: string) => gunzipSync(readFileSync(path.join(FIXTURES, `${file}.gz`))).toString('utf8');

describe('the committed PVE schema subset', () => {
  const dir = findSharedSchemaDir();

  it('holds the official dumps as fixtures, the same as shared/pve-api where that is beside the clone', () => {
    for (const version of Object.values(FLAVOURS)) {
      const file = `pve-${version}.json`;
      const committed = officialDump(file);
      expect(JSON.parse(committed).length).toBeGreaterThan(5);
      if (dir) expect(committed).toBe(readFileSync(path.join(dir, file), 'utf8'));
    }
  });

  it.each(Object.keys(FLAVOURS) as Flavour[])(
    'matches the official dump for PVE %s entry by entry, with origin and licence',
    (flavour) => {
      const source = `pve-${FLAVOURS[flavour]}.json`;
      const official = extractSubset(JSON.parse(officialDump(source)), source);
      const committed = loadSubset(flavour);
      expect(committed).toEqual(official);
      expect(committed.licence).toMatch(/AGPL-3\.0-or-later/);
      expect(committed.origin).toMatch(/proxmox\/pve-docs/);
    },
  );

  it('covers every simulated endpoint in 9.1, and in 8.4 all but those added in PVE 9 (SDN lock, fabrics and dry run, dbus-vmstate, HA rules, CPU flags and migration capabilities)', () => {
    const in91 = loadSubset('9.1').endpoints;
    const in84 = loadSubset('8.4').endpoints;
    for (const { path: p, methods } of SIMULATED_ENDPOINTS) {
      for (const m of methods) expect([p, m, in91[p]?.[m] !== undefined]).toEqual([p, m, true]);
    }
    const missingIn84 = SIMULATED_ENDPOINTS.map((e) => e.path).filter((p) => !in84[p]);
    expect(missingIn84).toEqual([
      '/cluster/sdn/lock',
      '/cluster/sdn/rollback',
      '/nodes/{node}/qemu/{vmid}/dbus-vmstate',
      '/cluster/ha/rules',
      '/cluster/ha/rules/{rule}',
      // SDN fabrics and the apply's dry run (pve-network 1.x for PVE 9), the CPU flags and migration capabilities.
      '/cluster/sdn/fabrics',
      '/cluster/sdn/fabrics/fabric',
      '/cluster/sdn/fabrics/fabric/{id}',
      '/cluster/sdn/fabrics/node',
      '/cluster/sdn/fabrics/node/{fabric_id}',
      '/cluster/sdn/fabrics/node/{fabric_id}/{node_id}',
      '/cluster/sdn/fabrics/all',
      '/cluster/sdn/dry-run',
      '/nodes/{node}/capabilities/qemu/cpu-flags',
      '/nodes/{node}/capabilities/qemu/migration',
    ]);
  });

  it.each(Object.keys(FLAVOURS) as Flavour[])(
    'every Perl pattern in the PVE %s subset compiles to a JavaScript RegExp',
    (flavour) => {
      const patterns: string[] = [];
      const collect = (schema: ParamSchema) => {
        if (schema.pattern) patterns.push(schema.pattern);
        if (schema.format && typeof schema.format === 'object') Object.values(schema.format).forEach(collect);
      };
      for (const methods of Object.values(loadSubset(flavour).endpoints)) {
        for (const m of Object.values(methods)) Object.values(m.parameters?.properties ?? {}).forEach(collect);
      }
      expect(patterns.length).toBeGreaterThan(10);
      for (const p of patterns) expect(() => perlPatternToRegExp(p)).not.toThrow();
    },
  );
});

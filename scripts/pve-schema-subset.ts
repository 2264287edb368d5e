/**
 * Regenerates the Proxmox VE schema subset the simulator is held to, from the official dumps in
 * ../shared/pve-api (or $FERRY_PVE_API_DIR). Run: npm run pve-schema-subset
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  extractSubset,
  findSharedSchemaDir,
  FLAVOURS,
  subsetFile,
  type Flavour,
} from '../lab/proxmox-sim/schema/subset';

const dir = findSharedSchemaDir();
if (!dir) throw new Error('no shared/pve-api folder found beside the clone; set FERRY_PVE_API_DIR');
for (const flavour of Object.keys(FLAVOURS) as Flavour[]) {
  const source = `pve-${FLAVOURS[flavour]}.json`;
  const subset = extractSubset(JSON.parse(readFileSync(path.join(dir, source), 'utf8')), source);
  writeFileSync(subsetFile(flavour), `${JSON.stringify(subset, null, 1)}\n`);
  console.log(`${subsetFile(flavour)}: ${Object.keys(subset.endpoints).length} paths from ${path.join(dir, source)}`);
}

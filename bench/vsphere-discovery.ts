/**
 * Discovery of a large vcsim estate: wall time, SOAP round trips, pages and bytes received.
 *
 *   npm run bench:vsphere [-- --vms 2000 --page-size 100,500,1000]
 *
 * The estate (named lab VMs + N scale VMs) is built once and cached (~/.cache/ferry/vcsim-estates).
 * Round trips must be the pages plus a constant (service content, login, view, destroy view): they
 * grow with pages, not with VMs. Prints figures; not a timed test.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseConfig } from '../src/config';
import { startVcsimLab } from '../lab/vcsim/vcsim-lab';
import { VsphereClient } from '../src/vsphere';

/** Round trips besides pages in an unscoped discovery by a new client. */
const CONSTANT_ROUND_TRIPS = 4;

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : fallback;
}

async function main(): Promise<void> {
  const vms = Number(arg('vms', '2000'));
  const pageSizes = arg('page-size', '100,500,1000').split(',').map(Number);
  const stateDir = mkdtempSync(path.join(tmpdir(), 'ferry-bench-vsphere-'));
  const started = performance.now();
  const lab = await startVcsimLab({ stateDir, extraVms: vms, log: (l) => console.log(`  ${l}`) });
  console.log(
    `vcsim with ${lab.manifest.vmCount} VMs ready in ${Math.round(performance.now() - started)} ms (estate built once, then loaded from cache)`,
  );
  let ok = true;
  try {
    const config = parseConfig({ vsphere: lab.config }, { VMWARE_PASSWORD: lab.password }, 'bench').vsphere!;
    console.log('\npage size   VMs  portgroups  pages  round trips  bytes received  wall ms');
    for (const pageSize of pageSizes) {
      const client = new VsphereClient(config);
      const t = performance.now();
      const result = await client.discover({ scope: {}, pageSize });
      const wall = Math.round(performance.now() - t);
      const { roundTrips, bytesReceived } = client.stats;
      await client.close();
      const bound = result.pages + CONSTANT_ROUND_TRIPS;
      if (roundTrips > bound || result.inventory.vms.length !== lab.manifest.vmCount) ok = false;
      console.log(
        `${String(pageSize).padStart(9)}  ${String(result.inventory.vms.length).padStart(5)}  ${String(result.inventory.portgroups.length).padStart(10)}  ` +
          `${String(result.pages).padStart(5)}  ${String(roundTrips).padStart(11)}  ${String(bytesReceived).padStart(14)}  ${String(wall).padStart(7)}`,
      );
    }
    console.log(
      `\nround trips ≤ pages + ${CONSTANT_ROUND_TRIPS} (RetrieveServiceContent, Login, CreateContainerView, DestroyView): ${ok ? 'yes' : 'NO'}`,
    );
  } finally {
    await lab.stop();
    rmSync(stateDir, { recursive: true, force: true });
  }
  if (!ok) process.exitCode = 1;
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});

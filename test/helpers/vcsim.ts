import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseConfig, type VsphereConfig } from '../../src/config';
import { startVcsimLab, type VcsimLab } from '../../lab/vcsim/vcsim-lab';
import { VsphereClient } from '../../src/vsphere';

/** Scale VMs in the test estate: the same number everywhere, so one cached estate serves every test file. */
export const TEST_EXTRA_VMS = 10;

export interface TestVcsim {
  lab: VcsimLab;
  stateDir: string;
  config: VsphereConfig;
  /** A new client (each logs in on its own). */
  client(overrides?: Partial<VsphereConfig>): VsphereClient;
  stop(): Promise<void>;
}

/** One real vcsim over TLS (lab CA trusted by file) with the lab estate, for one test file. */
export async function startTestVcsim(options: { methodDelay?: Record<string, number>; extraVms?: number } = {}): Promise<TestVcsim> {
  const stateDir = mkdtempSync(path.join(tmpdir(), 'ferry-vcsim-test-'));
  const lab = await startVcsimLab({ stateDir, extraVms: options.extraVms ?? TEST_EXTRA_VMS, methodDelay: options.methodDelay });
  const config = parseConfig({ vsphere: lab.config }, { VMWARE_PASSWORD: lab.password }, 'test').vsphere!;
  const clients: VsphereClient[] = [];
  return {
    lab,
    stateDir,
    config,
    client(overrides = {}) {
      const c = new VsphereClient({ ...config, ...overrides });
      clients.push(c);
      return c;
    },
    async stop() {
      for (const c of clients) await c.close().catch(() => undefined);
      await lab.stop();
      rmSync(stateDir, { recursive: true, force: true });
    },
  };
}

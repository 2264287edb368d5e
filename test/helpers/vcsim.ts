import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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
export async function startTestVcsim(
  options: { methodDelay?: Record<string, number>; extraVms?: number } = {},
): Promise<TestVcsim> {
  const stateDir = mkdtempSync(path.join(tmpdir(), 'ferry-vcsim-test-'));
  const lab = await startVcsimLab({
    stateDir,
    extraVms: options.extraVms ?? TEST_EXTRA_VMS,
    methodDelay: options.methodDelay,
  });
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

/**
 * How a user points `ferry` at this vcsim: an empty ferry.yaml and everything from the environment,
 * as with the Ansible collections.
 */
export function vmwareEnv(sim: TestVcsim): Record<string, string> {
  const configFile = path.join(sim.stateDir, 'ferry.yaml');
  writeFileSync(configFile, '# empty\n');
  return {
    FERRY_CONFIG: configFile,
    VMWARE_HOST: sim.config.host,
    VMWARE_PORT: String(sim.config.port),
    VMWARE_USER: sim.config.user,
    VMWARE_PASSWORD: sim.config.password,
    VMWARE_CA_FILE: sim.config.caFile!,
  };
}

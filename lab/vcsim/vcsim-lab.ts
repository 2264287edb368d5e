import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { LabComponent } from '../components';
import { ESTATE } from './estate';
import type { EstateManifest } from './build-estate';
import { placeEstate, savedEstate } from './estate-store';
import { makeLabCertificates } from './tls';
import { startVcsim, type Vcsim } from './vcsim-process';
import { placeDisks } from './vmdk';
import { tagLabVms } from './tags';

export const LAB_USER = 'ferry';

export interface VcsimLabOptions {
  stateDir: string;
  /** Scale VMs beyond the named ones (default 0). */
  extraVms?: number;
  /** `-method-delay`, e.g. `{ RelocateVm: 3000, LockHandoff: 0 }`. */
  methodDelay?: Record<string, number>;
  log?: (line: string) => void;
}

export interface VcsimLab {
  vcsim: Vcsim;
  /** The `vsphere` section of ferry.yaml for this vcsim (TLS verified against the lab CA). */
  config: { host: string; port: number; user: string; caFile: string; validateCerts: true };
  /** For VMWARE_PASSWORD. */
  password: string;
  manifest: EstateManifest;
  stop(): Promise<void>;
}

/**
 * vcsim serving the lab estate: the saved estate (built once per builder version and size, cached)
 * is loaded with `vcsim -load`, its datastores are folders under `stateDir` (`nfs-migration` being the
 * folder the Proxmox simulator mounts too), real VMDK files sit where the disks point, and TLS uses a
 * certificate of a lab CA.
 */
export async function startVcsimLab(options: VcsimLabOptions): Promise<VcsimLab> {
  const log = options.log ?? (() => undefined);
  const saved = await savedEstate(options.extraVms ?? 0, log);
  const dir = path.join(options.stateDir, 'vcsim');
  const load = placeEstate(saved, options.stateDir);
  const dirs = saved.manifest.datastoreDirs;
  await placeDisks(saved.manifest.disks, (ds) =>
    dirs[ds] === undefined ? undefined : path.join(options.stateDir, dirs[ds]),
  );
  const certs = await makeLabCertificates(path.join(dir, 'tls'));
  const password = randomBytes(12).toString('hex');
  const vcsim = await startVcsim({
    certs,
    username: LAB_USER,
    password,
    load,
    methodDelay: options.methodDelay,
    logFile: path.join(dir, 'vcsim.log'),
  });
  await tagLabVms(vcsim, LAB_USER, password, certs.caFile);
  return {
    vcsim,
    config: { host: vcsim.host, port: vcsim.port, user: LAB_USER, caFile: certs.caFile, validateCerts: true },
    password,
    manifest: saved.manifest,
    stop: () => vcsim.stop(),
  };
}

/** The lab's vCenter. `FERRY_LAB_EXTRA_VMS` adds scale VMs (default 10). */
export const vcsimLabComponent: LabComponent = {
  name: 'vcsim',
  async start(context) {
    const extraVms = Number(process.env.FERRY_LAB_EXTRA_VMS ?? 10);
    if (!Number.isInteger(extraVms) || extraVms < 0)
      throw new Error(`FERRY_LAB_EXTRA_VMS must be a whole number, got ${process.env.FERRY_LAB_EXTRA_VMS}`);
    const lab = await startVcsimLab({ stateDir: context.stateDir, extraVms, log: context.log });
    // For `ferry discover` from another shell: the lab's credentials, readable by this user only.
    const envFile = path.join(context.stateDir, 'vcsim', 'lab.env');
    const env = {
      VMWARE_HOST: lab.config.host,
      VMWARE_PORT: lab.config.port,
      VMWARE_USER: lab.config.user,
      VMWARE_PASSWORD: lab.password,
      VMWARE_CA_FILE: lab.config.caFile,
    };
    writeFileSync(
      envFile,
      Object.entries(env)
        .map(([k, v]) => `export ${k}='${String(v).replace(/'/g, `'\\''`)}'\n`)
        .join(''),
      { mode: 0o600 },
    );
    return {
      name: 'vcsim',
      summary: `vCenter simulator on ${lab.vcsim.url} (${ESTATE.datacenter}, ${lab.manifest.vmCount} VMs, datastore ${ESTATE.migrationDatastore} at ${path.join(context.stateDir, lab.manifest.datastoreDirs[ESTATE.migrationDatastore] ?? '')}); for ferry discover: . ${envFile}`,
      // Each lab run builds its estate afresh, so it is a new vCenter to ferry: the name (part of every
      // migrate-<vcenter>-<moid> workflow id) says which run it belongs to.
      config: {
        vsphere: { ...lab.config, name: `lab-${labRunStamp()}`, discovery: { datacenter: ESTATE.datacenter } },
      },
      env: { VMWARE_PASSWORD: lab.password },
      stop: () => lab.stop(),
    };
  },
};

const RUN_STAMP = new Date().toISOString().replace(/[-:]/g, '').slice(0, 15).toLowerCase();

/** This lab run, e.g. `20261130t021500`. */
export function labRunStamp(): string {
  return RUN_STAMP;
}

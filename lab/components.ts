import type { ActivityDeps } from '../activities';
import { vcsimLabComponent } from './vcsim/vcsim-lab';
import { migrationLabComponent } from './migration-lab';
import { proxmoxLabComponent } from './proxmox-lab';
import { bindLabComponent, netboxLabComponent } from './name-records';
import { provisioningLabComponent } from './provisioning-lab';

/**
 * Parts of the lab beyond Temporal: simulators and real servers (Proxmox simulator, vcsim, NetBox,
 * BIND). Each starts on loopback and contributes its section of the lab's configuration.
 */
export interface LabContext {
  stateDir: string;
  log: (line: string) => void;
}

export interface LabComponentHandle {
  name: string;
  /** One line for the lab's start-up output. */
  summary: string;
  /** Sections of ferry.yaml this component provides (e.g. `{ proxmox: {...} }`). */
  config: Record<string, unknown>;
  /** Secrets for the lab's configuration, by environment variable name. */
  env?: Record<string, string>;
  /** Worker dependencies the component injects (e.g. how probes reach the lab's guests). */
  deps?: Partial<ActivityDeps>;
  stop(): Promise<void>;
}

export interface LabComponent {
  name: string;
  start(context: LabContext): Promise<LabComponentHandle>;
}

export const LAB_COMPONENTS: LabComponent[] = [
  proxmoxLabComponent,
  vcsimLabComponent,
  netboxLabComponent,
  bindLabComponent,
  migrationLabComponent,
  provisioningLabComponent,
];

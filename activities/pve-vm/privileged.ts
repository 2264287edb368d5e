import { FerryError } from '../../src/errors';
import type { ProxmoxClient } from '../../src/proxmox';
import type { ActivityDeps } from '../deps';

/**
 * The root@pam client, for import-from by path, live import and discarding a live-imported VM (PVE
 * allows paths and skiplock only for root), or an error that says how to configure it.
 */
export function privilegedClient(deps: ActivityDeps, what: string): ProxmoxClient {
  if (!deps.proxmoxPrivileged) {
    throw new FerryError(
      `${what} needs a file path, which Proxmox accepts only from ${deps.config.proxmox?.privilegedUser ?? 'root@pam'}: set PROXMOX_PRIVILEGED_PASSWORD for the worker (or export the datastore as the storage's import/ folder)`,
      'policy',
    );
  }
  return deps.proxmoxPrivileged;
}

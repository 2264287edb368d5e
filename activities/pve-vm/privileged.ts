import { FerryError } from '../../src/errors';
import type { ProxmoxClient } from '../../src/proxmox';
import type { ActivityDeps } from '../deps';

/**
 * The root@pam client, for import-from by path, live import and discarding a VM left locked by its
 * live import (PVE allows paths and skiplock only for root), or an error that says how to configure it.
 * `needs` says what only root may do: a file path (default) or skiplock.
 */
export function privilegedClient(deps: ActivityDeps, what: string, needs: 'path' | 'skiplock' = 'path'): ProxmoxClient {
  if (!deps.proxmoxPrivileged) {
    const user = deps.config.proxmox?.privilegedUser ?? 'root@pam';
    throw new FerryError(
      needs === 'path'
        ? `${what} needs a file path, which Proxmox accepts only from ${user}: set PROXMOX_PRIVILEGED_PASSWORD for the worker (or export the datastore as the storage's import/ folder)`
        : `${what} needs skiplock, which Proxmox allows only ${user}: set PROXMOX_PRIVILEGED_PASSWORD for the worker, or remove the lock on the node (qm unlock) and try again`,
      'policy',
    );
  }
  return deps.proxmoxPrivileged;
}

import path from 'node:path';

/**
 * Folders several lab parts share. The NFS datastore `nfs-migration` is one folder that vcsim serves as
 * a datastore and the Proxmox simulator mounts as storage `nfs-migration`, as a real NFS export would be
 * mounted by both vSphere and Proxmox.
 */
export function nfsMigrationDir(stateDir: string): string {
  return path.join(stateDir, 'nfs-migration');
}

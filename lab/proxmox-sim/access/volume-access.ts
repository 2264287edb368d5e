import { fail } from '../api-error';
import type { PermissionChecker } from './permissions';

/**
 * pve-storage's check_volume_access: Datastore.Allocate on the storage allows any volume; an ISO, a
 * container template or an importable image needs Datastore.AllocateSpace or Datastore.Audit; a VM's
 * own volume nothing more; another VM's disk Datastore.Audit and VM.Config.Disk on that VM; a path
 * outside any storage only root@pam.
 */
export function volumeOwner(volname: string): number | undefined {
  const m = /^(?:\d+\/base-\d+-disk-\d+\.\w+\/)?(?:\d+\/)?(?:vm|base)-(\d+)-/.exec(volname) ?? /^(\d+)\//.exec(volname);
  return m ? Number(m[1]) : undefined;
}

export function volumeType(volname: string): string {
  if (/^iso\//.test(volname)) return 'iso';
  if (/^vztmpl\//.test(volname)) return 'vztmpl';
  if (/^import\//.test(volname)) return 'import';
  if (/^backup\//.test(volname)) return 'backup';
  if (/^snippets\//.test(volname)) return 'snippets';
  return 'images';
}

export function checkVolumeAccess(perm: PermissionChecker, volid: string, vmid?: string, type?: string): void {
  const m = /^([a-z][a-z0-9\-_.]*[a-z0-9]):(.+)$/i.exec(volid);
  if (!m) {
    if (!perm.isRoot) throw fail('Only root can pass arbitrary filesystem paths.');
    return;
  }
  const [, sid, volname] = m as unknown as [string, string, string];
  const vtype = volumeType(volname);
  const owner = volumeOwner(volname);
  if (type !== undefined && vtype !== type && (type !== 'rootdir' || vtype !== 'images'))
    throw fail(`unable to use volume ${volid} - content type needs to be '${type}'`);
  if (perm.has(`/storage/${sid}`, ['Datastore.Allocate'])) return;
  if (vtype === 'iso' || vtype === 'vztmpl' || vtype === 'import') {
    perm.checkAny(`/storage/${sid}`, ['Datastore.AllocateSpace', 'Datastore.Audit']);
  } else if (owner !== undefined && vmid !== undefined && String(owner) === String(vmid)) {
    // the VM's own volume
  } else if (vtype === 'backup' && owner !== undefined) {
    perm.check(`/storage/${sid}`, ['Datastore.AllocateSpace']);
    perm.check(`/vms/${owner}`, ['VM.Backup']);
  } else if (vtype === 'images' && owner !== undefined) {
    perm.check(`/storage/${sid}`, ['Datastore.Audit']);
    perm.check(`/vms/${owner}`, ['VM.Config.Disk']);
  } else throw fail(`missing privileges to access ${volid}`);
}

import { knownHostNames } from '../../src/domain/provisioning';
import { FerryError } from '../../src/errors';
import { removeKnownHosts } from '../../src/known-hosts/known-hosts';
import type { ActivityDeps } from '../deps';
import type { TeardownActivities } from '../provisioning-contract';

/** Removes the VM's names and addresses from the worker's known_hosts file. */
export function createKnownHostsCleanupActivities(deps: ActivityDeps): Pick<TeardownActivities, 'cleanupKnownHosts'> {
  return {
    async cleanupKnownHosts({ target }) {
      const file = deps.config.knownHosts?.file;
      if (!file) return { cleanup: 'known-hosts', result: 'skipped', detail: 'knownHosts.file is not configured' };
      const hosts = knownHostNames(target);
      if (hosts.length === 0)
        return { cleanup: 'known-hosts', result: 'already-absent', detail: 'no name or address known for the VM' };
      let removal;
      try {
        removal = await removeKnownHosts(file, hosts, deps.config.knownHosts?.ports);
      } catch (err) {
        throw fileError(file, err);
      }
      return removal.removed.length > 0
        ? {
            cleanup: 'known-hosts',
            result: 'done',
            detail: `removed ${removal.removed.length} line(s) of ${file} (${[...new Set(removal.removed.map((r) => r.host))].join(', ')})`,
          }
        : { cleanup: 'known-hosts', result: 'already-absent', detail: `${file} has no entry for ${hosts.join(', ')}` };
    },
  };
}

/** A file system error of known_hosts as a FerryError a person can act on. */
function fileError(file: string, err: unknown): unknown {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS')
    return new FerryError(`known_hosts ${file}: not writable (${code}); give the worker write access`, 'permission', {
      cause: err,
    });
  if (code === 'EISDIR' || code === 'ENOTDIR')
    return new FerryError(`known_hosts ${file}: not a file (${code}); fix knownHosts.file`, 'invalid', { cause: err });
  return err;
}

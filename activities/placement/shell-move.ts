import { FerryError } from '../../src/errors';
import { attachedDisks, ProxmoxNotFoundError } from '../../src/proxmox';
import { clientsOf } from '../clients';
import type { ActivityDeps } from '../deps';
import { writeIntent } from '../write-intent';
import type { ShellMoveActivities } from './contract';

const WRITE = 'destroy-shell';

/**
 * `ferry place`: the shell on the old node goes before it is built on the new one. Only a stopped,
 * disk-less shell with this VM's name is destroyed (its EFI vars / TPM state are re-created with it);
 * anything else is refused. A retry that finds it gone after an earlier attempt started the delete
 * reports it destroyed (write-intent.ts), so the record says what this run did.
 */
export function createShellMoveActivities(deps: ActivityDeps): ShellMoveActivities {
  const { pve } = clientsOf(deps);
  return {
    async destroyVmShell({ node, vmid, name }) {
      const intent = writeIntent();
      let values;
      try {
        values = (await pve().config.get(node, vmid)).values;
      } catch (err) {
        if (err instanceof ProxmoxNotFoundError) return { destroyed: intent.startedEarlier(WRITE) };
        throw err;
      }
      if (values.name !== name)
        throw new FerryError(
          `VM ${vmid} on ${node} is '${String(values.name)}', not the shell '${name}'; ferry does not destroy it`,
          'policy',
        );
      // EFI vars and TPM state are not among the attached disks: they are re-created with the shell.
      const disks = Object.keys(attachedDisks(values));
      if (disks.length > 0)
        throw new FerryError(
          `VM ${vmid} ${name} on ${node} has disks (${disks.join(', ')}): not a bare shell; ferry does not destroy it to move it`,
          'policy',
        );
      intent.start(WRITE);
      const { deleted } = await pve().vms.delete(
        node,
        vmid,
        { purge: true, destroyUnreferencedDisks: true },
        { onProgress: intent.beat },
      );
      return { destroyed: deleted || intent.startedEarlier(WRITE) };
    },
  };
}

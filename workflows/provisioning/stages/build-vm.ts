import { bareVm, provisionStep } from '../../../src/domain/provisioning';
import { waitVisible } from '../../vm/visible';
import type { VmBuild } from '../run-context';

/** The bare VM (or the one an earlier run created), seen by the whole cluster, with its ACL. */
export async function buildBareVm(vm: VmBuild, { adopt }: { adopt: boolean }): Promise<void> {
  const { acts, spec, vmid, node, enter, record } = vm;
  enter('create');
  if (adopt)
    record(
      provisionStep(
        'create-vm',
        `VM ${vmid}`,
        'adopted',
        `${spec.name} exists on ${node}; continuing from what is there`,
      ),
    );
  else {
    const { created } = await acts.pveTask.createBareVm.executeWithOptions(
      { summary: `create VM ${vmid} ${spec.name} on ${node} (q35, OVMF, no disks yet)` },
      [bareVm(spec, vmid)],
    );
    record(provisionStep('create-vm', `VM ${vmid}`, created ? 'created' : 'unchanged', `${spec.name} on ${node}`));
  }
  await waitVisible(vm, vmid, vm.settings.pollIntervalMs);
  await grantAcl(vm);
}

async function grantAcl({ acts, settings, vmid, record }: VmBuild): Promise<void> {
  if (!settings.acl) {
    record(provisionStep('acl', `/vms/${vmid}`, 'skipped', 'provisioning.acl is not set'));
    return;
  }
  const { changed } = await acts.write.ensureVmAcl.executeWithOptions(
    { summary: `ACL /vms/${vmid}: ${settings.acl.roles.join(', ')}` },
    [{ vmid, ...settings.acl }],
  );
  record(provisionStep('acl', `/vms/${vmid}`, changed ? 'created' : 'unchanged', settings.acl.roles.join(', ')));
}

import { bareVm } from '../../../src/domain/provisioning';
import { pollUntil } from '../../poll';
import type { VmBuild } from '../run-context';

const VISIBLE_TIMEOUT_MS = 10 * 60_000;

/** The bare VM (or the one an earlier run created), seen by the whole cluster, with its ACL. */
export async function buildBareVm(vm: VmBuild, { adopt }: { adopt: boolean }): Promise<void> {
  const { acts, spec, vmid, node, enter, record } = vm;
  enter('create');
  if (adopt)
    record('create-vm', `VM ${vmid}`, 'adopted', `${spec.name} exists on ${node}; continuing from what is there`);
  else {
    const { created } = await acts.vmTask.createBareVm.executeWithOptions(
      { summary: `create VM ${vmid} ${spec.name} on ${node} (q35, OVMF, no disks yet)` },
      [bareVm(spec, vmid)],
    );
    record('create-vm', `VM ${vmid}`, created ? 'created' : 'unchanged', `${spec.name} on ${node}`);
  }
  await waitVisible(vm);
  await grantAcl(vm);
}

/** Proxmox answers for a new VM on other nodes only once the cluster file system has it. */
async function waitVisible({ acts, settings, status, vmid }: VmBuild): Promise<void> {
  const visible = async () =>
    (await acts.read.waitVmVisible.executeWithOptions({ summary: `is VM ${vmid} in /cluster/resources` }, [{ vmid }]))
      .visible;
  status.waits.push(
    await pollUntil(visible, {
      what: `VM ${vmid} visible cluster-wide`,
      firstIntervalMs: 100,
      intervalMs: settings.pollIntervalMs,
      timeoutMs: VISIBLE_TIMEOUT_MS,
    }),
  );
}

async function grantAcl({ acts, settings, vmid, record }: VmBuild): Promise<void> {
  if (!settings.acl) {
    record('acl', `/vms/${vmid}`, 'skipped', 'provisioning.acl is not set');
    return;
  }
  const { changed } = await acts.record.ensureVmAcl.executeWithOptions(
    { summary: `ACL /vms/${vmid}: ${settings.acl.roles.join(', ')}` },
    [{ vmid, ...settings.acl }],
  );
  record('acl', `/vms/${vmid}`, changed ? 'created' : 'unchanged', settings.acl.roles.join(', '));
}

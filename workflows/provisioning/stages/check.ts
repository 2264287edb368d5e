import type { ProvisionSpec } from '../../../src/domain/provisioning';
import { occupancy, type VmidClash } from '../../../src/domain/vmid';
import { refuse } from '../refuse';
import type { UnplacedBuild } from '../run-context';

/** Whether the VM exists already, and where (a spec without a node adopts it there). */
export interface Found {
  adopt: boolean;
  node?: string;
}

/**
 * Adopts our own VM (same VMID, same name, same node when the spec names one) and refuses anything
 * else at this VMID or under this name. Returns whether the VM exists already.
 */
export async function refuseClash({ acts, spec, vmid, enter }: UnplacedBuild): Promise<Found> {
  const node = spec.node;
  enter('check');
  const existing = await acts.read.findPveVms.executeWithOptions(
    { summary: `Proxmox VMs with VMID ${vmid} or name ${spec.name}` },
    [{ vmid, name: spec.name }],
  );
  const found = occupancy(vmid, spec.name, existing);
  if (found.kind === 'clash') refuse('VmidClash', clashMessage(found.clash, spec));
  const adopted = existing.find((vm) => vm.vmid === vmid);
  if (adopted && node !== undefined && adopted.node !== node) {
    refuse(
      'VmOnOtherNode',
      `VM ${vmid} "${spec.name}" exists on node ${adopted.node}, not ${node}: ferry does not move it; fix the node (ferry_node) or migrate the VM`,
    );
  }
  return { adopt: found.kind === 'adopt', ...(adopted ? { node: adopted.node } : {}) };
}

function clashMessage(clash: VmidClash, spec: ProvisionSpec): string {
  const fix =
    spec.netboxId !== undefined ? `fix ferry_vmid of NetBox VM ${spec.netboxId}` : 'give the spec another vmid';
  return clash.kind === 'vmid-taken'
    ? `VMID ${clash.vmid} already belongs to Proxmox VM "${clash.holder ?? '(no name)'}", not "${clash.name}": ${fix}, or remove that VM. Nothing was created.`
    : `a Proxmox VM named "${clash.name}" already exists as VMID ${clash.vmids.join(', ')}, not ${clash.vmid}: ${fix} to match it, or rename or remove that VM. Nothing was created.`;
}

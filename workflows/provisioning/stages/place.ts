import { placeSpecs, specPlacement, type PlacedSpec } from '../../../src/domain/provisioning';
import { refuse } from '../refuse';
import type { UnplacedBuild, VmBuild } from '../run-context';
import type { Found } from './check';

/**
 * The VM's node, decided before anything is created: a VM that exists already stays where it is;
 * otherwise the cluster's room is read and the VM placed by the same rules as a migration wave (a
 * batch of one): a named node is kept and its storages checked for the disks, an unnamed one goes
 * to an online node with room. A VM that does not fit is refused with the numbers.
 */
export async function placeVm(unplaced: UnplacedBuild, found: Found, placedNode?: string): Promise<VmBuild> {
  // The batch's placement (provisionPlanned) pins a VM whose record names no node.
  const build =
    placedNode !== undefined && unplaced.spec.node === undefined
      ? { ...unplaced, spec: { ...unplaced.spec, node: placedNode } }
      : unplaced;
  const { spec, vmid } = build;
  if (found.adopt && found.node !== undefined) return placed(build, { ...spec, node: found.node });
  const what = spec.node !== undefined ? `room on ${spec.node} for ${spec.name}` : `a node for ${spec.name}`;
  const room = await build.acts.read.readClusterCapacity.executeWithOptions(
    { summary: `read Proxmox capacity: ${what}` },
    [{ exclude: [vmid] }],
  );
  const outcome = specPlacement(placeSpecs(room, [spec]), spec);
  if (!outcome.ok) refuse('NoRoom', `${spec.name} does not fit: ${outcome.reason}. Nothing was created.`);
  return placed(build, { ...spec, node: outcome.node });
}

function placed(build: UnplacedBuild, spec: PlacedSpec): VmBuild {
  build.status.node = spec.node;
  return { ...build, spec, node: spec.node };
}

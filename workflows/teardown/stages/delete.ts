import type { TeardownRun } from '../run-context';

/** Deletes the stopped VM with purge, and its unreferenced disks with it. */
export async function deletePveVm(
  { acts, record, enter }: TeardownRun,
  vm: { vmid: number; node: string; name?: string },
): Promise<void> {
  const { vmid, node, name } = vm;
  enter('delete');
  const { deleted } = await acts.pveTask.deleteVm.executeWithOptions(
    { summary: `delete VM ${vmid}${name ? ` ${name}` : ''} with purge` },
    [{ node, vmid }],
  );
  record({
    step: 'delete',
    outcome: deleted ? 'done' : 'already',
    detail: deleted ? 'purged with its disks' : 'already gone',
  });
}

/** Proxmox has no VM under the VMID: nothing to stop or delete, and the cleanups still run. */
export function recordNoVm({ record }: TeardownRun, vmid: number): void {
  record({ step: 'delete', outcome: 'already', detail: `Proxmox has no VM ${vmid}` });
}

import { provisionStep } from '../../../src/domain/provisioning';
import { bootVm } from '../../vm/boot';
import type { VmBuild } from '../run-context';

/** Starts the Proxmox VM unless it runs, holding a permit of the global VM-start limit. */
export async function startVm(build: VmBuild): Promise<void> {
  const { spec, vmid, node, record } = build;
  const started = await bootVm(build, { node, vmid, name: spec.name });
  record(
    started === 'started'
      ? provisionStep('start', `VM ${vmid}`, 'created', 'started')
      : provisionStep('start', `VM ${vmid}`, 'unchanged', 'already running'),
  );
}

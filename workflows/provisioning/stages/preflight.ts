import { requirements } from '../../../src/domain/provisioning';
import { refuse } from '../refuse';
import type { VmBuild } from '../run-context';

/** Everything the VM needs exists on its node, read through the API; refuses with every problem found. */
export async function preflight({ acts, spec, node, enter }: VmBuild): Promise<void> {
  enter('preflight');
  const needs = requirements(spec);
  const summary = `check node ${node}, storages ${needs.storages.join(', ')}, networks ${needs.networks.join(', ') || '-'}${needs.iso ? `, ${needs.iso}` : ''}`;
  const { problems } = await acts.read.preflightVm.executeWithOptions({ summary }, [needs]);
  if (problems.length > 0) refuse('PreflightFailed', `${spec.name} cannot be built on ${node}: ${problems.join('; ')}`);
}

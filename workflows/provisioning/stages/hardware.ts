import { vmOptions, provisionStep } from '../../../src/domain/provisioning';
import type { VmBuild } from '../run-context';

/** Each disk and NIC in its slot, then the remaining options. */
export async function fitHardware(vm: VmBuild): Promise<void> {
  vm.enter('hardware');
  await attachDisks(vm);
  await attachNics(vm);
  await setOptions(vm);
}

async function attachDisks({ acts, spec, vmid, node, record }: VmBuild): Promise<void> {
  for (const disk of spec.disks) {
    const { outcome } = await acts.pveTask.ensureVmDisk.executeWithOptions(
      { summary: `${disk.slot}: ${disk.sizeGiB} GiB on ${disk.storage}` },
      [{ node, vmid, disk }],
    );
    record(provisionStep('disk', disk.slot, outcome, `${disk.sizeGiB} GiB on ${disk.storage}`));
  }
}

async function attachNics({ acts, spec, vmid, node, record }: VmBuild): Promise<void> {
  for (const nic of spec.nics) {
    const where = `${nic.network}${nic.vlan !== undefined ? ` VLAN ${nic.vlan}` : ''}`;
    const { outcome } = await acts.write.ensureVmNic.executeWithOptions(
      { summary: `${nic.slot}: ${nic.model} on ${where}` },
      [{ node, vmid, nic }],
    );
    record(provisionStep('nic', nic.slot, outcome, `${nic.model} on ${where}`));
  }
}

async function setOptions({ acts, spec, vmid, node, record }: VmBuild): Promise<void> {
  const options = vmOptions(spec);
  if (Object.keys(options).length === 0) return;
  const keys = Object.keys(options).join(', ');
  const { changed } = await acts.write.ensureVmOptions.executeWithOptions({ summary: `options ${keys}` }, [
    { node, vmid, options },
  ]);
  record(
    provisionStep(
      'options',
      keys,
      changed.length > 0 ? 'updated' : 'unchanged',
      changed.length > 0 ? `set ${changed.join(', ')}` : undefined,
    ),
  );
}

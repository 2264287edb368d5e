import { ESTATE, NAMED_VMS } from './estate';
import { govcFor } from './govc';

/**
 * vSphere tags belong to the Automation API, which `govc object.save` / `vcsim -load` do not keep:
 * the lab tags its VMs each time vcsim starts (category `ferry`, tag `lab-wave`).
 */
export async function tagLabVms(
  vcsim: { host: string; port: number },
  user: string,
  password: string,
  caFile: string,
): Promise<void> {
  const govc = govcFor({ host: vcsim.host, port: vcsim.port, user, password, caFile });
  await govc('tags.category.create', '-t', 'VirtualMachine', ESTATE.tags.category);
  await govc('tags.create', '-c', ESTATE.tags.category, ESTATE.tags.tag);
  for (const name of ESTATE.tags.vms) {
    const vm = NAMED_VMS.find((v) => v.name === name)!;
    await govc(
      'tags.attach',
      '-c',
      ESTATE.tags.category,
      ESTATE.tags.tag,
      `/${ESTATE.datacenter}/vm/${vm.folder}/${vm.name}`,
    );
  }
}

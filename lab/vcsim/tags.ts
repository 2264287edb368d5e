import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { ESTATE, NAMED_VMS } from './estate';
import { toolPath } from '../tools';

const run = promisify(execFile);

/**
 * vSphere tags belong to the Automation API, which `govc object.save` / `vcsim -load` do not keep:
 * the lab tags its VMs each time vcsim starts (category `ferry`, tag `lab-wave`).
 */
export async function tagLabVms(vcsim: { host: string; port: number }, user: string, password: string, caFile: string): Promise<void> {
  const env = {
    ...process.env,
    GOVC_URL: `https://${encodeURIComponent(user)}:${encodeURIComponent(password)}@${vcsim.host}:${vcsim.port}/sdk`,
    GOVC_TLS_CA_CERTS: caFile,
    GOVC_PERSIST_SESSION: 'false',
    GOVC_DATACENTER: ESTATE.datacenter,
  };
  const govc = (...args: string[]) => run(toolPath('govc'), args, { env });
  await govc('tags.category.create', '-t', 'VirtualMachine', ESTATE.tags.category);
  await govc('tags.create', '-c', ESTATE.tags.category, ESTATE.tags.tag);
  for (const name of ESTATE.tags.vms) {
    const vm = NAMED_VMS.find((v) => v.name === name)!;
    await govc('tags.attach', '-c', ESTATE.tags.category, ESTATE.tags.tag, `/${ESTATE.datacenter}/vm/${vm.folder}/${vm.name}`);
  }
}

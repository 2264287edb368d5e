import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { toolPath } from '../tools';
import { ESTATE } from './estate';

const run = promisify(execFile);

/** Where govc reaches a vcsim and as whom (the password goes through the environment, never the command line). */
export interface GovcTarget {
  host: string;
  port: number;
  user: string;
  password: string;
  caFile: string;
}

/** A govc bound to one vcsim, in the lab's datacenter: `govc('vm.info', name)` answers its stdout. */
export function govcFor(target: GovcTarget): (...args: string[]) => Promise<string> {
  const env = {
    ...process.env,
    GOVC_URL: `https://${encodeURIComponent(target.user)}:${encodeURIComponent(target.password)}@${target.host}:${target.port}/sdk`,
    GOVC_TLS_CA_CERTS: target.caFile,
    GOVC_PERSIST_SESSION: 'false',
    GOVC_DATACENTER: ESTATE.datacenter,
  };
  return async (...args) => (await run(toolPath('govc'), args, { env })).stdout;
}

import { versionSchema } from './schemas';
import type { ProxmoxTransport } from './transport';

/** `GET /version`, and what differs between PVE 8 and 9 for ferry. */
export interface PveVersion {
  version: string;
  release: string;
  major: number;
  minor: number;
  /** PVE 9 guards SDN writes with a global lock (pve-network >= 1.1.3); PVE 8 has none. */
  sdnLock: boolean;
}

export async function readVersion(transport: ProxmoxTransport): Promise<PveVersion> {
  const v = await transport.call('GET', '/version', {}, versionSchema);
  const [major, minor] = v.version.split('.').map(Number) as [number, number];
  return { version: v.version, release: v.release, major, minor, sdnLock: major >= 9 };
}

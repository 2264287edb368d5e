import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../src/paths';

/** Binaries installed by scripts/setup.sh (links in .tools/bin to the version-pinned cache). */
export type Tool =
  | 'temporal'
  | 'temporal-test-server'
  | 'temporal-server'
  | 'temporal-sql-tool'
  | 'vcsim'
  | 'govc'
  | 'redis-server'
  | 'named'
  | 'dig'
  | 'nsupdate'
  | 'ssh-keygen'
  // Proxmox clients ferry does not use itself, for the real-client suite (scripts/setup.d/60-real-clients.sh)
  | 'proxmoxer-python'
  | 'go-proxmox-lifecycle'
  | 'tofu'
  | 'terraform-provider-proxmox';

/**
 * Absolute path of an installed tool. `FERRY_<NAME>_BIN` overrides it. Never downloads anything:
 * a missing tool is an error that says how to install it.
 */
export function toolPath(tool: Tool): string {
  const override = process.env[`FERRY_${tool.toUpperCase().replace(/-/g, '_')}_BIN`];
  const candidate = override ?? path.join(REPO_ROOT, '.tools', 'bin', tool);
  try {
    accessSync(candidate, constants.X_OK);
  } catch {
    throw new Error(`${tool} is not installed at ${candidate}; run \`npm run setup\` (scripts/setup.sh) first`);
  }
  return candidate;
}

import { ProxmoxInputError } from './errors';
import { diskSizeBytes, formatDiskSize } from '../domain/pve-disk-size';

export { formatDiskSize };

/** PVE disk sizes: `32G`, `512M`, `528K`, plain bytes (the rule lives in src/domain/pve-disk-size.ts). */
export function parseDiskSize(text: string): number {
  const bytes = diskSizeBytes(text);
  if (bytes === undefined) throw new ProxmoxInputError(`not a disk size: "${text}"`);
  return bytes;
}

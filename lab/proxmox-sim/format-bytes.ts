import { formatBinaryBytes } from '../../src/domain/binary-bytes';

/** PVE's render_bytes: the largest binary unit, two decimals (`1.50 GiB`). */
export const formatBytes = (bytes: number): string => formatBinaryBytes(bytes, 2, 2);

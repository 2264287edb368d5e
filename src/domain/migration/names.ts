/**
 * PVE VM names must be DNS names (labels of letters, digits and hyphens, dots between). VMware allows
 * anything, so names are made safe; names are labels in ferry, never identities.
 */
export function pveVmName(vmwareName: string): string {
  const labels = vmwareName
    .trim()
    .split('.')
    .map((label) =>
      label
        .replace(/[^A-Za-z0-9-]+/g, '-')
        .replace(/-+/g, '-')
        .replace(/^-+|-+$/g, '')
        .slice(0, 63)
        .replace(/-+$/, ''),
    )
    .filter((label) => label.length > 0);
  const name = labels.join('.');
  return name.length > 0 ? name.slice(0, 253) : 'vm';
}

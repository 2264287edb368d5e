import path from 'node:path';

/**
 * A guest image's VMDK descriptor made to name another flat extent (a VM's own copy of the image, laid
 * out as vSphere keeps it on NFS: `x.vmdk` + `x-flat.vmdk`). Fails when the descriptor does not name the
 * image's extent, so a copy never points at the cached image.
 */
export function descriptorNaming(descriptorText: string, imageFlat: string, flat: string): string {
  const from = `"${path.basename(imageFlat)}"`;
  if (!descriptorText.includes(from))
    throw new Error(`the guest image's VMDK descriptor does not name its extent ${from}`);
  return descriptorText.replace(from, `"${path.basename(flat)}"`);
}

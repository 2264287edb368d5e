/** PVE SDN zone and VNet ids: a letter, then letters or digits, 2–8 characters (pve-network). */
const SDN_ID = /^[a-zA-Z][a-zA-Z0-9]*[a-zA-Z0-9]$/;

export function sdnIdProblem(id: string): string | undefined {
  if (id.length < 2 || id.length > 8) return `"${id}" must be 2 to 8 characters long`;
  if (!SDN_ID.test(id)) return `"${id}" must start with a letter and contain only letters and digits`;
  return undefined;
}

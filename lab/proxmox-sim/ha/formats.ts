/**
 * pve-ha-manager's named formats (PVE::HA::Tools; PVE 8's pve-ha-group-node is PVE 9's pve-ha-node), with
 * its messages. `-list` forms are checked item by item by checkNamedFormat.
 */
type Check = (value: string) => string | undefined;

const HA_NODE = /^([a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?)(:\d+)?$/;

export const HA_FORMATS: Record<string, Check> = {
  'pve-ha-resource-id': (v) => (/^[a-z]+:\S+$/.test(v) ? undefined : 'value does not look like a valid ha resource id'),
  'pve-ha-resource-or-vm-id': (v) =>
    /^([a-z]+:\S+|\d+)$/.test(v) ? undefined : 'value does not look like a valid ha resource id',
  'pve-ha-node': (v) => (HA_NODE.test(v) ? undefined : 'value does not look like a valid ha node'),
  'pve-ha-group-node': (v) => (HA_NODE.test(v) ? undefined : 'value does not look like a valid ha group node'),
};

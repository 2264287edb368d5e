/**
 * The privileges ferry's API token needs, by PVE major version (docs/proxmox.md, "A role for ferry"):
 * what the calls ferry makes are checked against, and nothing more. PVE 9 split the guest agent's
 * privilege (VM.GuestAgent.Audit) from VM.Monitor. Each is needed by one of ferry's operations:
 *
 * - VM.Allocate, VM.Audit, VM.Config.{CPU,Memory,Options,HWType,Disk,CDROM,Cloudinit,Network}: create a
 *   shell, read and change its config, its disks, CD drives, cloud-init drive and NICs, delete it;
 * - VM.PowerMgmt: start, shut down, stop; VM.GuestAgent.Audit (9) / VM.Monitor (8): ask the guest agent;
 * - Datastore.AllocateSpace: new disks and imports on a storage, its content;
 * - SDN.Allocate and SDN.Use: mirror VLANs as zones and vnets, attach NICs to bridges and vnets;
 * - Sys.Audit and Sys.Console: read and write the HA manager's resources (and the nodes' figures);
 * - Permissions.Modify: set the ACLs a provisioning config asks for.
 */
export const FERRY_ROLE_PRIVILEGES: Readonly<Record<8 | 9, readonly string[]>> = {
  8: [
    'Datastore.AllocateSpace',
    'Permissions.Modify',
    'SDN.Allocate',
    'SDN.Use',
    'Sys.Audit',
    'Sys.Console',
    'VM.Allocate',
    'VM.Audit',
    'VM.Config.CDROM',
    'VM.Config.CPU',
    'VM.Config.Cloudinit',
    'VM.Config.Disk',
    'VM.Config.HWType',
    'VM.Config.Memory',
    'VM.Config.Network',
    'VM.Config.Options',
    'VM.Monitor',
    'VM.PowerMgmt',
  ],
  9: [
    'Datastore.AllocateSpace',
    'Permissions.Modify',
    'SDN.Allocate',
    'SDN.Use',
    'Sys.Audit',
    'Sys.Console',
    'VM.Allocate',
    'VM.Audit',
    'VM.Config.CDROM',
    'VM.Config.CPU',
    'VM.Config.Cloudinit',
    'VM.Config.Disk',
    'VM.Config.HWType',
    'VM.Config.Memory',
    'VM.Config.Network',
    'VM.Config.Options',
    'VM.GuestAgent.Audit',
    'VM.PowerMgmt',
  ],
};

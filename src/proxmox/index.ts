export {
  ProxmoxClient,
  createPrivilegedProxmoxClient,
  createProxmoxClient,
  endpointFromConfig,
  type ProxmoxClientOptions,
} from './client';
export type { ProxmoxEndpoint } from './transport';
export * from './errors';
export type { ActiveTask, TaskResult, WaitOptions, TaskProgress } from './tasks';
export type { PveVersion } from './version';
export type { VmShellSpec, VmSummary, CreateResult } from './vms';
export { vmCreateParams } from './vms';
export type { VmConfig, PendingChange, ConfigUpdate } from './config';
export type { NicSpec, Nic } from './nics';
export type { EnsureDiskSpec, ImportDiskSpec, Disk, DiskCreateMode } from './disks';
export { attachedDisks, parseDisk } from './disks';
export type { ZoneSpec, VnetSpec, SdnChanges } from './sdn';
export type { AclSpec, AclEntry } from './acl';
export type { StorageItem, ContentType } from './storage';
export type { NodeSummary, NodeStorage, NodeNetwork } from './nodes';
export type { GuestNetworkInterface, VmRunState } from './agent';
export type { ClusterCapacity } from './capacity';

export { VsphereClient, type VsphereClientOptions } from './client';
export {
  ScopeError,
  type DiscoveryOptions,
  type DiscoveryResult,
  type DiscoveryScope,
  type SkippedObject,
} from './discovery';
export {
  GuestShutdownTimeout,
  VsphereCancelledError,
  VsphereConnectionError,
  VsphereFault,
  VsphereHttpError,
  VsphereResponseError,
  VsphereSessionRenewed,
} from './faults';
export type {
  PowerOnResult,
  RelocateResult,
  ShutdownOptions,
  ShutdownResult,
  VmDetail,
  VmWithNetworks,
} from './operations';
export type { OperationProgress, WaitOptions } from './tasks';
export type { RecentTask } from './recent-tasks';
export type { TransportStats } from './transport';

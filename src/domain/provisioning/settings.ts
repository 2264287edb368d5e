import type { ApprovalPolicy } from '../approvals/statement';
import type { SpecDefaults } from './spec';
import type { TeardownSettings } from './teardown';
import type { VmidRange } from './allocation';

/**
 * What provisioning and teardown workflows run with: ferry.yaml's `provisioning` section, read once
 * by an activity at the start of a workflow (so it is in history and a replay sees the same).
 */
export interface ProvisioningSettings {
  defaults: SpecDefaults;
  vmidRange: VmidRange;
  acl?: { roles: string[]; users: string[]; groups: string[] };
  approvers: string[];
  /** How teardown approvals are checked (signed: by the approvers' keys), `unsigned`: by names alone. */
  approvals: ApprovalPolicy;
  maxConcurrent: number;
  heartbeatTimeoutMs: number;
  /** Backoff of retried activities. */
  retry: { initialIntervalMs: number; maximumIntervalMs: number };
  pollIntervalMs: number;
  /** verify-guest: how long after the agent answered the guest's interfaces are read again for its MACs and address. */
  guestNetworkTimeoutMs: number;
  /** The global limits provisioning holds to (`limits.vmStart`: VM starts at once). */
  limits: { vmStart: number };
  teardown: TeardownSettings;
  /** Which outside systems this worker has (steps for absent ones are skipped, and said so). */
  has: { netbox: boolean; dns: boolean; knownHosts: boolean };
  /** netbox.name: NetBox's name in workflow ids. */
  netboxName?: string;
}

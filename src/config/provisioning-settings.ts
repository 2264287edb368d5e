import { approvalPolicy, approverNames } from './approvers';
import { durationToMs } from './common';
import type { FerryConfig } from './schema';
import type { ProvisioningSettings } from '../domain/provisioning';
import { FerryError } from '../errors';

/** Which clients the worker was built with: steps for the absent ones are skipped, and said so. */
export interface ProvisioningClients {
  netbox: boolean;
  dns: boolean;
}

/** ferry.yaml `provisioning` (+ the endpoints this worker has) as the workflows take it. */
export function provisioningSettings(config: FerryConfig, clients: ProvisioningClients): ProvisioningSettings {
  const p = config.provisioning;
  if (!p) {
    throw new FerryError(
      'ferry.yaml has no provisioning: section (node, storage, network, prefix, dnsZone, teardown, …; see ferry.example.yaml)',
      'invalid',
    );
  }
  return {
    defaults: {
      ...(p.node ? { node: p.node } : {}),
      storage: p.storage,
      ...(p.efiStorage ? { efiStorage: p.efiStorage } : {}),
      network: p.network,
      ...(p.prefix ? { prefix: p.prefix } : {}),
      ...(p.dnsZone ? { dnsZone: p.dnsZone } : {}),
      ostype: p.ostype,
      nicModel: p.nicModel,
      tags: p.tags,
      extras: p.extras,
      start: p.start,
      ...(p.secureBoot ? {} : { secureBoot: false }),
    },
    vmidRange: p.vmidRange,
    ...(p.acl ? { acl: p.acl } : {}),
    approvers: approverNames(p.approvers),
    approvals: approvalPolicy(p.approvals, p.approvers),
    maxConcurrent: p.maxConcurrent,
    heartbeatTimeoutMs: durationToMs(p.heartbeatTimeout),
    retry: {
      initialIntervalMs: durationToMs(p.retry.initialInterval),
      maximumIntervalMs: durationToMs(p.retry.maximumInterval),
    },
    pollIntervalMs: durationToMs(p.pollInterval),
    guestNetworkTimeoutMs: durationToMs(p.guestNetworkTimeout),
    limits: { vmStart: config.limits.vmStart },
    teardown: {
      approvalFor: p.teardown.approvalFor,
      ...(p.teardown.approvalDeadline !== undefined
        ? { approvalDeadlineMs: durationToMs(p.teardown.approvalDeadline) }
        : {}),
      netbox: p.teardown.netbox,
      shutdownTimeoutMs: durationToMs(p.teardown.shutdownTimeout),
      knownHosts: p.teardown.knownHosts,
      cleanupAttempts: p.teardown.cleanupAttempts,
    },
    has: { netbox: clients.netbox, dns: clients.dns, knownHosts: Boolean(config.knownHosts) },
    ...(config.netbox?.name ? { netboxName: config.netbox.name } : {}),
  };
}

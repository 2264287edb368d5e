import type { ChangeSettings } from '../domain/change-vm';
import { durationToMs } from './common';
import { provisioningSettings, type ProvisioningClients } from './provisioning-settings';
import type { FerryConfig } from './schema';

/** ferry.yaml `change` with what it shares with provisioning (the translation's defaults, approvers, timing). */
export function changeSettings(config: FerryConfig, clients: ProvisioningClients): ChangeSettings {
  const p = provisioningSettings(config, clients);
  const { debounce, window, restart, ...policy } = config.change;
  return {
    policy,
    defaults: p.defaults,
    debounceMs: durationToMs(debounce),
    ...(window ? { window } : {}),
    restart: { shutdownTimeoutMs: durationToMs(restart.shutdownTimeout), forceStop: restart.forceStop },
    approvers: p.approvers,
    approvals: p.approvals,
    heartbeatTimeoutMs: p.heartbeatTimeoutMs,
    pollIntervalMs: p.pollIntervalMs,
    retry: p.retry,
    limits: p.limits,
    guestTimeoutMs: 5 * 60_000,
  };
}

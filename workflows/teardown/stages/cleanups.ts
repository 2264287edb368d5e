import type { ActivityOptions } from '@temporalio/workflow';
import {
  CLEANUPS,
  type CleanupKind,
  type CleanupOutcome,
  type ProvisioningSettings,
  type TeardownTarget,
} from '../../../src/domain/provisioning';
import { failureMessage } from '../../failures';
import type { ActivityProfiles } from '../../vm/proxies';
import type { TeardownRun } from '../run-context';

interface Cleanup {
  /** The summary of its activity in the Temporal UI. */
  summary(target: TeardownTarget, settings: ProvisioningSettings): string;
  call(
    proxy: ReturnType<ActivityProfiles['cleanup']>,
    options: ActivityOptions,
    target: TeardownTarget,
    settings: ProvisioningSettings,
  ): Promise<CleanupOutcome>;
}

/** Each cleanup's activity, by kind. */
const CLEANUP: Record<CleanupKind, Cleanup> = {
  dns: {
    summary: (target) => `remove DNS A/PTR of ${target.fqdn ?? target.name ?? target.vmid}`,
    call: (proxy, options, target) => proxy.cleanupDns.executeWithOptions(options, [{ target }]),
  },
  'known-hosts': {
    summary: (target) => `remove known_hosts entries of ${target.name ?? target.vmid}`,
    call: (proxy, options, target) => proxy.cleanupKnownHosts.executeWithOptions(options, [{ target }]),
  },
  ip: {
    summary: (target) => `release NetBox addresses of VM ${target.vmid}`,
    call: (proxy, options, target) => proxy.cleanupIps.executeWithOptions(options, [{ target }]),
  },
  interfaces: {
    summary: (target) => `delete NetBox interfaces and MACs of VM ${target.vmid}`,
    call: (proxy, options, target) => proxy.cleanupInterfaces.executeWithOptions(options, [{ target }]),
  },
  'netbox-vm': {
    summary: (target, settings) => `NetBox VM ${target.netboxId ?? '-'}: ${settings.teardown.netbox}`,
    call: (proxy, options, target, settings) =>
      proxy.cleanupNetboxVm.executeWithOptions(options, [{ target, after: settings.teardown.netbox }]),
  },
};

/** Each cleanup on its own, in order: a failure is reported, never hidden, and stops nothing. */
export async function runCleanups(run: TeardownRun, target: TeardownTarget): Promise<void> {
  run.enter('cleanup');
  for (const cleanup of CLEANUPS) run.status.cleanups.push(await runCleanup(run, cleanup, target));
}

async function runCleanup(
  { acts, settings }: TeardownRun,
  cleanup: CleanupKind,
  target: TeardownTarget,
): Promise<CleanupOutcome> {
  if (cleanup === 'known-hosts' && !settings.teardown.knownHosts) {
    return { cleanup, result: 'skipped', detail: 'provisioning.teardown.knownHosts is off' };
  }
  const { summary, call } = CLEANUP[cleanup];
  try {
    return await call(
      acts.cleanup(settings.teardown.cleanupAttempts),
      { summary: summary(target, settings) },
      target,
      settings,
    );
  } catch (err) {
    return {
      cleanup,
      result: 'failed',
      detail: 'not done; a rerun of the teardown tries again',
      error: failureMessage(err),
    };
  }
}

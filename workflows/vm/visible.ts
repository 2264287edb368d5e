import { pollUntil } from '../poll';
import type { ActivityProfiles } from './proxies';

const VISIBLE_TIMEOUT_MS = 10 * 60_000;

/**
 * Waits until the whole cluster sees a new VM (/cluster/resources lists it): Proxmox answers for it on
 * other nodes only once its cluster file system has it, usually within a second.
 */
export async function waitVisible(
  run: { acts: ActivityProfiles; waited(wait: { for: string; waitedMs: number }): void },
  vmid: number,
  intervalMs: number,
): Promise<void> {
  const visible = async () =>
    (
      await run.acts.read.waitVmVisible.executeWithOptions({ summary: `is VM ${vmid} visible cluster-wide?` }, [
        { vmid },
      ])
    ).visible;
  run.waited(
    await pollUntil(visible, {
      what: `VM ${vmid} visible cluster-wide`,
      firstIntervalMs: 100,
      intervalMs,
      timeoutMs: VISIBLE_TIMEOUT_MS,
    }),
  );
}

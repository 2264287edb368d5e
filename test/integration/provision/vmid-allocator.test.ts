import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import type { ActivityDeps } from '../../../activities/deps';
import { toActivityFailure, withFailureMapping } from '../../../activities/failures';
import { createProvisioningActivities } from '../../../activities/provisioning';
import type { FerryConfig } from '../../../src/config';
import { FerryError } from '../../../src/errors';
import { connectTestTemporal, createTestWorker, uniqueName, type TestTemporal } from '../../helpers/temporal';

/**
 * The allocator workflow on the real dev server with a stand-in for its read of the VMIDs in use, and
 * the real requestVmid activity in front of it: what kind of failure does a provision get back?
 */
describe('VMID allocator failures', () => {
  let temporal: TestTemporal;
  beforeAll(async () => {
    temporal = await connectTestTemporal();
  });
  afterAll(() => temporal.close());

  it('tells a failed read of the VMIDs in use (retryable) from a full range (final)', async () => {
    const taskQueue = uniqueName('vmid');
    let used: () => number[] = () => {
      // Non-retryable, so the allocator's own read gives up at once instead of after its deadline.
      throw new FerryError('Proxmox refused the VM list', 'permission');
    };
    const worker = await createTestWorker(temporal.nativeConnection, {
      taskQueue,
      activities: withFailureMapping({ usedVmids: async () => used() }),
    });
    const { requestVmid } = createProvisioningActivities({ config: {} as FerryConfig } as ActivityDeps);
    const ask = (key: string) =>
      new MockActivityEnvironment({}, { client: temporal.client }).run(requestVmid, {
        request: { key, name: key, range: { min: 9000, max: 9001 } },
        taskQueue,
      });
    const failureOf = async (key: string) => {
      const err = await ask(key).then(
        () => undefined,
        (e: unknown) => e,
      );
      const failure = toActivityFailure(err);
      expect(failure).toBeInstanceOf(ApplicationFailure);
      return failure as ApplicationFailure;
    };

    await worker.runUntil(async () => {
      const unread = await failureOf('a');
      expect(unread).toMatchObject({ type: 'VmidReadFailed', nonRetryable: false });
      expect(unread.message).toMatch(/could not read the VMIDs in use: .*Proxmox refused the VM list/);

      used = () => [9000];
      await expect(ask('a')).resolves.toEqual({ vmid: 9001 });
      const full = await failureOf('b');
      expect(full).toMatchObject({ type: 'VmidRangeExhausted', nonRetryable: true });
      expect(full.message).toContain('no free VMID in 9000–9001');
    });
  });
});

import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import type { ActivityDeps } from '../../../activities/deps';
import { toActivityFailure, withFailureMapping } from '../../../activities/failures';
import { createProvisioningActivities } from '../../../activities/provisioning';
import type { FerryConfig } from '../../../src/config';
import { FerryError } from '../../../src/errors';
import { ProxmoxTlsError } from '../../../src/proxmox';
import { connectTestTemporal, createTestWorkers, uniqueName, type TestTemporal } from '../../helpers/temporal';

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

  it('keeps a read refused for good final (TLS, permission) and tells a full range (final) apart', async () => {
    const taskQueue = uniqueName('vmid');
    // An untrusted certificate, as the Proxmox client classifies it: a configuration error, never retried.
    let used: () => number[] = () => {
      throw new ProxmoxTlsError(
        'https://pve:8006: TLS: the certificate is not trusted (UNABLE_TO_VERIFY_LEAF_SIGNATURE); set proxmox.caFile',
        {},
        Object.assign(new Error('unable to verify the first certificate'), { code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' }),
      );
    };
    const worker = await createTestWorkers(temporal.nativeConnection, {
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
      const untrusted = await failureOf('a');
      // Before: retryable, so `ferry provision --wait` retried an untrusted certificate for 15 minutes.
      expect(untrusted).toMatchObject({ type: 'VmidReadFailed', nonRetryable: true });
      expect(untrusted.message).toMatch(/could not read the VMIDs in use: .*TLS: .*proxmox\.caFile/);

      used = () => {
        throw new FerryError('Proxmox refused the VM list', 'permission');
      };
      const refused = await failureOf('a');
      expect(refused).toMatchObject({ type: 'VmidReadFailed', nonRetryable: true });
      expect(refused.message).toMatch(/could not read the VMIDs in use: .*Proxmox refused the VM list/);

      used = () => [9000];
      await expect(ask('a')).resolves.toEqual({ vmid: 9001 });
      const full = await failureOf('b');
      expect(full).toMatchObject({ type: 'VmidRangeExhausted', nonRetryable: true });
      expect(full.message).toContain('no free VMID in 9000–9001');
    });
  });
});

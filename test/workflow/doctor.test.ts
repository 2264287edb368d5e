import { parseConfig } from '../../src/config';
import { createActivities } from '../../activities';
import type { doctor } from '../../workflows/doctor';
import {
  connectTestTemporal,
  createTestWorker,
  devServerAddress,
  uniqueName,
  type TestTemporal,
} from '../helpers/temporal';

describe('doctor workflow on the real dev server', () => {
  let temporal: TestTemporal;
  beforeAll(async () => {
    temporal = await connectTestTemporal();
  });
  afterAll(() => temporal.close());

  it('checks Temporal and reports its version, namespace and TLS mode', async () => {
    const config = parseConfig({ temporal: { address: devServerAddress() } }, {});
    const taskQueue = uniqueName('doctor');
    const worker = await createTestWorker(temporal.nativeConnection, {
      taskQueue,
      activities: createActivities({ config }),
    });
    const report = await worker.runUntil(
      temporal.client.workflow.execute<typeof doctor>('doctor', { taskQueue, workflowId: uniqueName('doctor') }),
    );
    expect(report.verdicts).toHaveLength(1);
    const [verdict] = report.verdicts;
    expect(verdict).toMatchObject({ endpoint: 'temporal', target: devServerAddress(), ok: true, tls: 'plaintext' });
    expect(verdict!.version).toMatch(/^server \d+\.\d+\.\d+/);
    expect(verdict!.detail).toBe('namespace default is registered');
    expect(report.ok).toBe(true);
  });

  it('reports a namespace that does not exist as a failed verdict, not a crash', async () => {
    const config = parseConfig({ temporal: { address: devServerAddress(), namespace: 'no-such-namespace' } }, {});
    const taskQueue = uniqueName('doctor');
    const worker = await createTestWorker(temporal.nativeConnection, {
      taskQueue,
      activities: createActivities({ config }),
    });
    const report = await worker.runUntil(
      temporal.client.workflow.execute<typeof doctor>('doctor', { taskQueue, workflowId: uniqueName('doctor') }),
    );
    expect(report.ok).toBe(false);
    expect(report.verdicts[0]).toMatchObject({ endpoint: 'temporal', ok: false, reachable: true });
    expect(report.verdicts[0]!.detail).toMatch(/no-such-namespace/);
  });
});

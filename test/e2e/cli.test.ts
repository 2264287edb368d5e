import path from 'node:path';
import type { Client } from '@temporalio/client';
import { resolveTarget } from '../../cli/targets';
import { FerryKind, VmName, WaveId } from '../../src/domain/search-attributes';
import { ROOT, spawnFerry } from '../helpers/processes';
import { connectTestTemporal, devServerAddress, uniqueName, type TestTemporal } from '../helpers/temporal';
import { until } from '../helpers/wait';

/**
 * The CLI against the shared dev server, with workflows started on a queue no worker serves: they
 * stay running, which is all target resolution and the decision commands look at.
 */
describe('ferry CLI, as an approver runs it', () => {
  jest.setTimeout(120_000);
  let temporal: TestTemporal;
  let client: Client;
  const taskQueue = uniqueName('cli-idle');
  const waveId = uniqueName('cliwave');
  const vmName = uniqueName('plan-db1'); // looks like a workflow id prefix, is a VM name
  const migrateIds = [`migrate-${waveId}-vm-1`, `migrate-${waveId}-vm-2`];
  // The example config names every endpoint; an approver has none of the worker's secrets.
  const env = {
    FERRY_CONFIG: path.join(ROOT, 'ferry.example.yaml'),
    TEMPORAL_ADDRESS: devServerAddress(),
    PROXMOX_TOKEN_SECRET: '',
    PROXMOX_PASSWORD: '',
    VMWARE_PASSWORD: '',
    NETBOX_TOKEN: '',
    FERRY_DNS_TSIG_SECRET: '',
  };

  async function ferry(...args: string[]) {
    const run = spawnFerry(args, env);
    const code = await run.exited;
    return { code, output: run.output() };
  }

  beforeAll(async () => {
    temporal = await connectTestTemporal();
    client = temporal.client;
    await client.workflow.start('migrationWave', {
      taskQueue,
      workflowId: `wave-${waveId}`,
      args: [{ waveId, selection: { names: ['x'] } }],
      typedSearchAttributes: [
        { key: FerryKind, value: 'wave' },
        { key: WaveId, value: waveId },
      ],
    });
    for (const [i, workflowId] of migrateIds.entries()) {
      await client.workflow.start('migrateVm', {
        taskQueue,
        workflowId,
        args: [{}],
        typedSearchAttributes: [
          { key: FerryKind, value: 'migrate' },
          { key: WaveId, value: waveId },
          { key: VmName, value: i === 0 ? vmName : `${vmName}-b` },
        ],
      });
    }
    // Visibility lags a little behind the starts.
    await until('the workflows in visibility', async () => {
      let n = 0;
      for await (const _ of client.workflow.list({ query: `WaveId = '${waveId}'` })) n++;
      return n === 3 ? n : undefined;
    });
  });

  afterAll(async () => {
    for (const id of [`wave-${waveId}`, ...migrateIds])
      await client?.workflow
        .getHandle(id)
        .terminate('test done')
        .catch(() => undefined);
    await temporal?.close();
  });

  it('lists workflows with the example config and no worker secret set', async () => {
    const { code, output } = await ferry('list', '--kind', 'wave', '--running', '--limit', '500');
    expect(output).toContain(`wave-${waveId}`);
    expect(code).toBe(0);
  });

  it('resolves a wave id to the wave, a VM name to its workflow, and a workflow id as is', async () => {
    expect((await resolveTarget(client, waveId)).workflowId).toBe(`wave-${waveId}`);
    expect((await resolveTarget(client, vmName)).workflowId).toBe(migrateIds[0]);
    expect((await resolveTarget(client, migrateIds[1]!)).workflowId).toBe(migrateIds[1]);
    await expect(resolveTarget(client, uniqueName('nothing'))).rejects.toThrow(/no ferry workflow found/);
  });

  it('refuses reject on a wave before sending anything, listing the wave’s VM workflows', async () => {
    const { code, output } = await ferry('reject', waveId, '--by', 'alice', '--reason', 'test');
    expect(output).toContain(`reject is decided per VM: wave-${waveId} is a wave, which takes approve only`);
    for (const id of migrateIds) expect(output).toContain(id);
    expect(output).not.toContain('No registered handler');
    expect(code).toBe(2);
  });

  it('refuses bad numbers and --vms on a VM as usage errors (exit 2)', async () => {
    const limit = await ferry('list', '--limit', '0');
    expect(limit.output).toContain(
      "option '--limit <n>' argument '0' is invalid. expected a whole number from 1 to 10000",
    );
    expect(limit.code).toBe(2);
    const vms = await ferry('approve', migrateIds[0]!, '--by', 'alice', '--reason', 'test', '--vms', 'a');
    expect(vms.output).toContain(`--vms is for a wave; ${migrateIds[0]} is a migrateVm`);
    expect(vms.code).toBe(2);
  });
});

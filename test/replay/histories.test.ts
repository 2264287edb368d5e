import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { workflowBundlePath } from '../helpers/temporal';

const HISTORIES = path.join(__dirname, '..', 'histories');
const files = readdirSync(HISTORIES)
  .filter((f) => f.endsWith('.json'))
  .sort();

describe('stored histories replay against the current workflow code', () => {
  beforeAll(() => {
    try {
      Runtime.install({ logger: new DefaultLogger('WARN'), shutdownSignals: [] });
    } catch {
      // installed already
    }
  });

  it('has histories to replay', () => {
    expect(files.length).toBeGreaterThan(0);
  });

  it.each(files)('%s', async (file) => {
    const stored = JSON.parse(readFileSync(path.join(HISTORIES, file), 'utf8')) as {
      workflowId?: string;
      history?: unknown;
      events?: unknown;
    };
    // `{ workflowId, history }` as scripts/record-histories.ts writes it; a bare history replays under its file name.
    const workflowId = stored.workflowId ?? file;
    const history = stored.history ?? stored;
    await Worker.runReplayHistory({ workflowBundle: { codePath: workflowBundlePath() } }, history, workflowId);
  });
});

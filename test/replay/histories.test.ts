import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { workflowBundlePath } from '../helpers/temporal';

const HISTORIES = path.join(__dirname, '..', 'histories');
const files = readdirSync(HISTORIES).filter((f) => f.endsWith('.json')).sort();

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
    const history = JSON.parse(readFileSync(path.join(HISTORIES, file), 'utf8'));
    // Replay as the recorded workflow: code may depend on its id (permit requests are named after it).
    const workflowId: string = history.events?.[0]?.workflowExecutionStartedEventAttributes?.workflowId ?? file;
    await Worker.runReplayHistory({ workflowBundle: { codePath: workflowBundlePath() } }, history, workflowId);
  });
});

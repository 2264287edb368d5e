import { parseConfig } from '../../src/config';
import {
  DEFAULT_COORDINATION_CACHED_WORKFLOWS,
  DEFAULT_COORDINATION_QUEUE,
  DEFAULT_MAX_CACHED_WORKFLOWS,
  DEFAULT_MAX_WORKFLOW_TASKS,
  servedQueues,
} from '../../src/config/temporal';
import { problemsOf } from '../helpers/config-problems';

describe('config: worker memory and concurrency', () => {
  it('bounds the workflow cache and concurrent workflow tasks by default', () => {
    const { worker } = parseConfig({}, {});
    expect(worker.maxCachedWorkflows).toBe(DEFAULT_MAX_CACHED_WORKFLOWS);
    expect(worker.maxConcurrentWorkflowTaskExecutions).toBe(DEFAULT_MAX_WORKFLOW_TASKS);
    expect(worker.taskQueues.vmotion?.maxConcurrentActivities).toBe(4);
  });

  it('takes them from ferry.yaml', () => {
    const { worker } = parseConfig(
      {
        worker: {
          maxCachedWorkflows: 0,
          maxConcurrentWorkflowTaskExecutions: 8,
          taskQueues: { import: { maxConcurrentActivities: 2 } },
        },
      },
      {},
    );
    expect(worker).toMatchObject({
      maxCachedWorkflows: 0,
      maxConcurrentWorkflowTaskExecutions: 8,
      taskQueues: { import: { maxConcurrentActivities: 2 } },
    });
  });

  it('gives a workflow activation 60 s by default (the SDK 5 s) and takes a duration from ferry.yaml', () => {
    expect(parseConfig({}, {}).worker.isolateExecutionTimeout).toBe('60s');
    expect(parseConfig({ worker: { isolateExecutionTimeout: '2m' } }, {}).worker.isolateExecutionTimeout).toBe('2m');
    expect(problemsOf(() => parseConfig({ worker: { isolateExecutionTimeout: 'soon' } }, {}))).toEqual([
      expect.stringMatching(/^worker\.isolateExecutionTimeout /),
    ]);
  });

  it('keeps workflow stack traces unless ferry.yaml turns them off', () => {
    expect(parseConfig({}, {}).worker.workflowStackTraces).toBe(true);
    expect(parseConfig({ worker: { workflowStackTraces: false } }, {}).worker.workflowStackTraces).toBe(false);
    expect(problemsOf(() => parseConfig({ worker: { workflowStackTraces: 'yes' } }, {}))).toEqual([
      expect.stringMatching(/^worker\.workflowStackTraces /),
    ]);
  });

  it('refuses values that are not whole numbers in range, naming the key', () => {
    const problems = problemsOf(() =>
      parseConfig({ worker: { maxCachedWorkflows: -1, maxConcurrentWorkflowTaskExecutions: 1.5 } }, {}),
    );
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^worker\.maxCachedWorkflows /),
        expect.stringMatching(/^worker\.maxConcurrentWorkflowTaskExecutions /),
      ]),
    );
  });
});

describe('the coordination queue', () => {
  it('is served beside the main queue by default, with its own small cache and task slots', () => {
    const config = parseConfig({}, {});
    expect(servedQueues(config).map(([role]) => role)).toEqual([
      'main',
      'coordination',
      'vmotion',
      'import',
      'sdn',
      'convert',
      'datastore',
    ]);
    expect(config.worker.taskQueues.coordination).toEqual(DEFAULT_COORDINATION_QUEUE);
    expect(DEFAULT_COORDINATION_CACHED_WORKFLOWS).toBeLessThan(DEFAULT_MAX_CACHED_WORKFLOWS);
  });

  it('the datastore queue comes with convert (both need the datastore mounted) unless listed, and only with convert', () => {
    const listed = (taskQueues: object) => servedQueues(parseConfig({ worker: { taskQueues } }, {}));
    expect(listed({ convert: { maxConcurrentActivities: 1 } })).toEqual([
      ['convert', { maxConcurrentActivities: 1 }],
      ['datastore', { maxConcurrentActivities: 8 }],
    ]);
    expect(listed({ convert: { maxConcurrentActivities: 1 }, datastore: { maxConcurrentActivities: 3 } })).toEqual([
      ['convert', { maxConcurrentActivities: 1 }],
      ['datastore', { maxConcurrentActivities: 3 }],
    ]);
    expect(listed({ import: { maxConcurrentActivities: 2 } }).map(([role]) => role)).toEqual(['import']);
  });

  it('comes with main when a ferry.yaml lists its queues without it, and only with main', () => {
    const listed = (taskQueues: object) => servedQueues(parseConfig({ worker: { taskQueues } }, {}));
    expect(listed({ main: { maxConcurrentActivities: 5 }, import: { maxConcurrentActivities: 2 } })).toEqual([
      ['main', { maxConcurrentActivities: 5 }],
      ['import', { maxConcurrentActivities: 2 }],
      ['coordination', DEFAULT_COORDINATION_QUEUE],
    ]);
    expect(listed({ import: { maxConcurrentActivities: 2 } }).map(([role]) => role)).toEqual(['import']);
    expect(
      listed({
        coordination: { maxConcurrentActivities: 3, maxCachedWorkflows: 7, maxConcurrentWorkflowTaskExecutions: 4 },
      }),
    ).toEqual([
      ['coordination', { maxConcurrentActivities: 3, maxCachedWorkflows: 7, maxConcurrentWorkflowTaskExecutions: 4 }],
    ]);
  });
});

import {
  coordinationQueue,
  heavyQueue,
  mainQueueOf,
  queueName,
  QUEUE_ROLES,
  scopedLimitKey,
} from '../../../src/domain/task-queues';

describe('task queues', () => {
  it('names the coordination queue beside the main queue, and finds the main queue back from either', () => {
    expect(coordinationQueue('ferry')).toBe('ferry-coordination');
    expect(queueName('ferry', 'coordination')).toBe('ferry-coordination');
    expect(mainQueueOf('ferry-coordination')).toBe('ferry');
    expect(mainQueueOf('ferry')).toBe('ferry');
    expect(mainQueueOf('mig-abc-coordination')).toBe('mig-abc');
    expect(QUEUE_ROLES).toContain('coordination');
  });

  it('derives heavy queues and semaphore keys from the main queue, so production ids stay as they were', () => {
    const main = mainQueueOf(coordinationQueue('ferry'));
    expect(heavyQueue(main, 'vmotion')).toBe('ferry-vmotion');
    expect(scopedLimitKey(main, 'vmotion')).toBe('vmotion');
    expect(scopedLimitKey(mainQueueOf(coordinationQueue('test-1')), 'vmotion')).toBe('test-1.vmotion');
    expect(queueName('ferry', 'main')).toBe('ferry');
    expect(queueName('ferry', 'import')).toBe('ferry-import');
  });
});

import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { toActivityFailure, withFailureMapping } from '../../activities/failures';
import { FerryError, type ErrorCategory } from '../../src/errors';

class VmLockedError extends FerryError {}

describe('activity failure mapping', () => {
  it.each<[ErrorCategory, boolean]>([
    ['transient', false],
    ['locked', false],
    ['conflict', false],
    ['invalid', true],
    ['permission', true],
    ['not-found', true],
    ['policy', true],
  ])('%s errors are non-retryable: %s', (category, nonRetryable) => {
    const failure = toActivityFailure(new FerryError(`boom (${category})`, category)) as ApplicationFailure;
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure.nonRetryable).toBe(nonRetryable);
    expect(failure.message).toBe(`boom (${category})`);
    expect(failure.details).toEqual([{ category }]);
  });

  it('names the failure after the error class and keeps details and the retry hint', () => {
    const failure = toActivityFailure(
      new VmLockedError('VM 101 is locked (create)', 'locked', { details: { vmid: 101 }, retryAfterMs: 2000 }),
    ) as ApplicationFailure;
    expect(failure.type).toBe('VmLockedError');
    expect(failure.details).toEqual([{ category: 'locked', vmid: 101 }]);
    expect(failure.nextRetryDelay).toBe(2000);
  });

  it('leaves unknown errors to Temporal’s default retry', () => {
    const plain = new TypeError('x is undefined');
    expect(toActivityFailure(plain)).toBe(plain);
  });

  it('wraps every activity and keeps its name and result', async () => {
    const activities = withFailureMapping({
      async ok(n: number) {
        return n + 1;
      },
      async refuse() {
        throw new FerryError('snapshots must be removed first', 'policy');
      },
    });
    expect(activities.ok.name).toBe('ok');
    const env = new MockActivityEnvironment();
    expect(await env.run(activities.ok, 1)).toBe(2);
    await expect(env.run(activities.refuse)).rejects.toMatchObject({
      name: 'ApplicationFailure',
      type: 'FerryError',
      nonRetryable: true,
    });
  });
});

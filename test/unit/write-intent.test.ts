import { MockActivityEnvironment } from '@temporalio/testing';
import { earlierWrites, intentDetails, writeIntent } from '../../activities/write-intent';

describe('write intent (truthful outcomes across retries)', () => {
  it('reads the writes an earlier attempt recorded, ignoring anything else in its details', () => {
    expect(earlierWrites({ startedWrites: ['create', 7, 'acl'], upid: 'UPID:x' })).toEqual(['create', 'acl']);
    expect(earlierWrites({ upid: 'UPID:x' })).toEqual([]);
    expect(earlierWrites(undefined)).toEqual([]);
    expect(earlierWrites('progress text')).toEqual([]);
  });

  it('keeps progress details as they were (task rejoin reads `upid` from them) and adds the started writes', () => {
    expect(intentDetails(['create'], { upid: 'UPID:a', elapsedMs: 5 })).toEqual({
      upid: 'UPID:a',
      elapsedMs: 5,
      startedWrites: ['create'],
    });
    expect(intentDetails(['create'], 'waiting')).toEqual({ progress: 'waiting', startedWrites: ['create'] });
    expect(intentDetails([])).toEqual({ startedWrites: [] });
  });

  it('heartbeats a write before it is sent, carries it through progress beats, and a retry sees it as started earlier', async () => {
    const first = new MockActivityEnvironment();
    const beats: unknown[] = [];
    first.on('heartbeat', (d: unknown) => beats.push(d));
    await first.run(async () => {
      const intent = writeIntent();
      expect(intent.startedEarlier('create')).toBe(false);
      intent.start('create');
      intent.beat({ upid: 'UPID:b' });
    });
    expect(beats).toEqual([{ startedWrites: ['create'] }, { upid: 'UPID:b', startedWrites: ['create'] }]);

    const retry = new MockActivityEnvironment({ attempt: 2, heartbeatDetails: beats[1] });
    await retry.run(async () => {
      const intent = writeIntent();
      expect(intent.startedEarlier('create')).toBe(true);
      expect(intent.startedEarlier('acl')).toBe(false);
    });
  });
});

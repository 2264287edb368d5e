import { spawn, type ChildProcess } from 'node:child_process';
import { libguestfsEnv } from '../../../src/domain/conversion';
import { GuestfishSession } from '../../../src/conversion/guestfish';

/**
 * `guestfish --listen` prints its server's PID before the server has made its socket (libguestfs's
 * rc_listen: "a small but unavoidable race"). At low priority beside busy processes the server takes a
 * while to get there; the session waits for it instead of failing its first command ("looks like the
 * server is not running", seen beside two conversions in bench:neighbours).
 */
describe('a guestfish session at low priority on a busy machine', () => {
  jest.setTimeout(120_000);
  let hogs: ChildProcess[] = [];
  afterEach(() => hogs.forEach((h) => h.kill('SIGKILL')));

  it('answers its first command once its server listens', async () => {
    // A busy loop per core at normal priority: SCHED_IDLE gets only what they leave.
    hogs = [1, 2].map(() => spawn('sh', ['-c', 'while :; do :; done'], { stdio: 'ignore' }));
    for (let i = 0; i < 3; i++) {
      const g = await GuestfishSession.start(libguestfsEnv('tcg'), 'low');
      try {
        expect((await g.call('get-verbose')).trim()).toBe('false');
      } finally {
        await g.close();
      }
    }
  });
});

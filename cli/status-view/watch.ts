import type { StatusView } from '../../src/domain/status';
import { changed, changeLines } from './changes';

export interface Watcher {
  show(view: StatusView): void;
  done(): void;
}

/**
 * A terminal redraws the frame in place (log-update); anything else (a pipe, a log file) gets one
 * timestamped line per change.
 */
export function watcher(render: (view: StatusView) => string, tty = process.stdout.isTTY === true): Watcher {
  if (tty) {
    // Loaded only here: `status` without --watch on a terminal does not pay for log-update and its 14 modules.
    const logUpdate = require('log-update') as typeof import('log-update');
    return {
      show: (view) => logUpdate(render(view)),
      done: () => logUpdate.done(),
    };
  }
  let previous = new Map<string, string>();
  return {
    show(view) {
      const next = changeLines(view);
      const time = new Date().toISOString().slice(11, 19);
      for (const line of changed(previous, next)) process.stdout.write(`${time} ${line}\n`);
      previous = next;
    },
    done: () => undefined,
  };
}

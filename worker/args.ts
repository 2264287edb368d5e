import { ConfigError } from '../src/config';

export interface WorkerArgs {
  config?: string;
}

const USAGE = 'usage: worker [--config FILE | -c FILE | --config=FILE]';

/** The worker's command line: only the config file; anything else is refused rather than ignored. */
export function parseWorkerArgs(argv: readonly string[]): WorkerArgs {
  const args: WorkerArgs = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    let value: string | undefined;
    if (arg.startsWith('--config=')) value = arg.slice('--config='.length);
    else if (arg === '--config' || arg === '-c') value = argv[++i];
    else if (arg === '--help' || arg === '-h') throw new ConfigError([USAGE]);
    else throw new ConfigError([`unknown argument "${arg}"; ${USAGE}`]);
    if (!value) throw new ConfigError([`${arg} needs a file; ${USAGE}`]);
    if (args.config !== undefined) throw new ConfigError([`the config file is given twice; ${USAGE}`]);
    args.config = value;
  }
  return args;
}

import { ConfigError } from '../../src/config';
import { parseWorkerArgs } from '../../worker/args';

describe('worker arguments', () => {
  it('takes the config file in every usual spelling', () => {
    expect(parseWorkerArgs([])).toEqual({});
    expect(parseWorkerArgs(['--config', 'a.yaml'])).toEqual({ config: 'a.yaml' });
    expect(parseWorkerArgs(['--config=b.yaml'])).toEqual({ config: 'b.yaml' });
    expect(parseWorkerArgs(['-c', 'c.yaml'])).toEqual({ config: 'c.yaml' });
  });

  it('refuses what it does not know, a missing file name and a second file', () => {
    expect(() => parseWorkerArgs(['--conf', 'a.yaml'])).toThrow(/unknown argument "--conf"/);
    expect(() => parseWorkerArgs(['--config'])).toThrow(/--config needs a file/);
    expect(() => parseWorkerArgs(['--config=', 'x'])).toThrow(/--config= needs a file/);
    expect(() => parseWorkerArgs(['-c', 'a.yaml', '--config=b.yaml'])).toThrow(ConfigError);
  });
});

import { ConfigError } from '../../src/config';

/** The problems a ConfigError lists; fails the test when `fn` does not throw one. */
export function problemsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

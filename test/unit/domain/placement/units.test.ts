import { formatBytes, formatRatio, needsAndFree } from '../../../../src/domain/placement';
import { GiB } from './fixtures';

describe('formatBytes', () => {
  it.each([
    [0, 'up', '0 GiB'],
    [-5 * GiB, 'down', '0 GiB'],
    [412 * GiB, 'up', '412 GiB'],
    [412 * GiB, 'down', '412 GiB'],
    [412.2 * GiB, 'up', '413 GiB'],
    [412.8 * GiB, 'down', '412 GiB'],
    [10 * GiB, 'up', '10 GiB'],
    [9.95 * GiB, 'up', '10 GiB'],
    [9.95 * GiB, 'down', '9.9 GiB'],
    [2 * GiB, 'down', '2 GiB'],
    [1.25 * GiB, 'up', '1.3 GiB'],
    [1.25 * GiB, 'down', '1.2 GiB'],
    [512 * 1024 ** 2, 'up', '512 MiB'],
    [1, 'up', '1 MiB'],
    [1, 'down', '0 MiB'],
  ] as const)('%p rounded %s → %p', (bytes, rounding, text) => expect(formatBytes(bytes, rounding)).toBe(text));
});

describe('needsAndFree', () => {
  it('prints the example from the issue', () =>
    expect(needsAndFree(412 * GiB, 180 * GiB)).toBe('needs 412 GiB, 180 GiB free'));

  it('never prints a need that does not fit as equal to the room', () => {
    expect(needsAndFree(180 * GiB + 1, 180 * GiB)).toBe('needs 181 GiB, 180 GiB free');
    expect(needsAndFree(5 * GiB + 1, 5 * GiB)).toBe('needs 5.1 GiB, 5 GiB free');
  });
});

describe('formatRatio', () => {
  it.each([
    [1, '1.0'],
    [1.5, '1.5'],
    [2, '2.0'],
    [1.25, '1.25'],
  ])('%p → %p', (ratio, text) => expect(formatRatio(ratio)).toBe(text));
});

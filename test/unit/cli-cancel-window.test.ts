import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseAtTime } from '../../cli/at-time';
import { renderCancelAndWindow } from '../../cli/render-cancel-window';
import { readWaveFile } from '../../cli/wave-file';
import { cutoverSchedule } from '../../src/domain/migration';

describe('approve --at', () => {
  it('takes an ISO 8601 time with its zone', () => {
    expect(parseAtTime('2026-03-28T22:30+01:00')).toBe(Date.parse('2026-03-28T21:30:00Z'));
    expect(parseAtTime('2026-03-28T21:30:00.250Z')).toBe(Date.parse('2026-03-28T21:30:00.250Z'));
  });

  it.each([
    ['22:30', 'needs a date, a time and a zone'],
    ['2026-03-28T22:30', 'needs a date, a time and a zone'],
    ['2026-03-28', 'needs a date, a time and a zone'],
    ['tomorrow', 'is not an ISO 8601 date and time'],
    ['2026-02-30T22:30Z', 'is not an ISO 8601 date and time'],
  ])('refuses %j as a usage error naming the flag', (text, message) => {
    expect(() => parseAtTime(text)).toThrow(
      expect.objectContaining({ name: 'UsageError', message: expect.stringContaining(`--at: "${text}" ${message}`) }),
    );
  });
});

describe('wave file cutoverWindow', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ferry-wave-window-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const waveFile = (window: string) => {
    const file = path.join(dir, 'wave.yaml');
    writeFileSync(file, `waveId: w1\nselection: { folder: /DC0/vm/apps }\ncutoverWindow: ${window}\n`);
    return file;
  };

  it('is read with the wave', () => {
    expect(readWaveFile(waveFile('{ start: "22:00", end: "02:00", timeZone: Europe/Berlin }')).cutoverWindow).toEqual({
      start: '22:00',
      end: '02:00',
      timeZone: 'Europe/Berlin',
    });
  });

  it('names what is wrong, with its key', () => {
    expect(() => readWaveFile(waveFile('{ start: "22:00", end: "26:00", timeZone: Europe/Berlin }'))).toThrow(
      /cutoverWindow: end: expected a wall-clock time HH:MM/,
    );
    expect(() => readWaveFile(waveFile('{ start: "22:00", end: "02:00", timeZone: Berlin }'))).toThrow(
      /cutoverWindow: timeZone: "Berlin" is not an IANA time zone/,
    );
    expect(() => readWaveFile(waveFile('{ start: "22:00", end: "02:00", timeZone: UTC, days: 5 }'))).toThrow(
      /cutoverWindow: unknown key\(s\) "days"/,
    );
  });
});

describe('status lines for a schedule and a cancel', () => {
  it('says when the cutover starts and what a cancel left', () => {
    const schedule = cutoverSchedule(
      { start: '22:00', end: '02:00', timeZone: 'Europe/Berlin' },
      undefined,
      Date.parse('2026-01-15T12:00:00Z'),
    );
    const cancellation = {
      by: 'alice',
      reason: 'change freeze',
      at: 0,
      via: 'update',
      removeShells: false,
      stage: 'relocate',
      effect: 'stops-now',
      left: {
        vmware: { powerState: 'poweredOn', disks: [{ label: 'Hard disk 1', datastore: 'LocalDS_0' }] },
        relocation: 'task-42: error',
        shell: 'kept',
      },
    };
    expect(renderCancelAndWindow({ schedule, cancellation })).toEqual([
      '  cutover starts 2026-01-15T22:00:00+01:00 (window 22:00–02:00 Europe/Berlin, closes 2026-01-16T02:00:00+01:00)',
      '  cancelled by alice: change freeze in stage relocate (stopped there)',
      '    left on VMware: poweredOn; Hard disk 1 on LocalDS_0; storage vMotion task task-42: error; shell kept',
    ]);
  });

  it('says the shells were removed only when they were', () => {
    const cancel = (left?: Record<string, unknown>) => ({
      cancellation: {
        by: 'alice',
        reason: 'retired',
        at: 0,
        via: 'update',
        removeShells: true,
        stage: 'awaiting-approval',
        effect: 'stops-now',
        ...(left ? { left: { vmware: { powerState: 'poweredOn', disks: [] }, ...left } } : {}),
      },
    });
    const head = '  cancelled by alice: retired in stage awaiting-approval (stopped there) (--remove-shells)';
    expect(renderCancelAndWindow(cancel({ shell: 'removed' }))).toEqual([
      head,
      '    left on VMware: poweredOn; shell removed',
    ]);
    expect(
      renderCancelAndWindow(cancel({ shell: 'kept', shellNotRemoved: 'discarding VM 20123 needs skiplock' })),
    ).toEqual([head, '    left on VMware: poweredOn; shell kept: NOT removed: discarding VM 20123 needs skiplock']);
    expect(renderCancelAndWindow(cancel())).toEqual([
      head,
      '    shell: not removed yet (it goes when the VM has stopped where it is)',
    ]);
    for (const lines of [cancel({ shell: 'kept' }), cancel()].map(renderCancelAndWindow))
      expect(lines.join('\n')).not.toContain('shell removed');
  });
});

describe('wave file conversion', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ferry-wave-conversion-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const waveFile = (conversion: string) => {
    const file = path.join(dir, 'wave.yaml');
    writeFileSync(file, `waveId: w1\nselection: { folder: /DC0/vm/apps }\nconversion: ${conversion}\n`);
    return file;
  };

  it('is read with the wave, and a mode that is none is refused with the modes there are', () => {
    expect(readWaveFile(waveFile('linux')).conversion).toBe('linux');
    expect(() => readWaveFile(waveFile('windows'))).toThrow(/conversion: 'off', 'linux' \(Linux guests\) or 'all'/);
  });
});

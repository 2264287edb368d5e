import { WorkflowFailedError } from '@temporalio/client';
import { ActivityFailure, ApplicationFailure, RetryState } from '@temporalio/common';
import { CommanderError, InvalidArgumentError } from 'commander';
import { ConfigError } from '../../src/config';
import { exitCodeFor, UsageError } from '../../cli/errors';
import { intOption } from '../../cli/int-option';
import { buildProgram } from '../../cli/main';
import { targetQuery } from '../../cli/targets';
import { rootCauseMessage } from '../../cli/workflow-result';

describe('cli: whole-number options', () => {
  it('takes whole numbers inside the range', () => {
    expect(intOption(1, 65535)('8233')).toBe(8233);
    expect(intOption(1)(' 7 ')).toBe(7);
  });

  it('refuses anything else with the range in the message', () => {
    expect(() => intOption(1, 65535)('0')).toThrow(
      new InvalidArgumentError('expected a whole number from 1 to 65535, got "0".'),
    );
    expect(() => intOption(1)('ten')).toThrow('expected a whole number 1 or more, got "ten".');
    for (const bad of ['1.5', '-3', '', '1e3', '99999999999999999999'])
      expect(() => intOption(1)(bad)).toThrow(InvalidArgumentError);
  });

  it('makes commander refuse a bad flag as a usage error', async () => {
    const program = buildProgram().configureOutput({ writeErr: () => undefined, writeOut: () => undefined });
    const err = await program.parseAsync(['node', 'ferry', 'list', '--limit', 'ten']).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CommanderError);
    expect((err as Error).message).toContain(
      "option '--limit <n>' argument 'ten' is invalid. expected a whole number from 1 to 10000",
    );
    expect(exitCodeFor(err)).toBe(2);
  });
});

describe('cli: exit codes', () => {
  it('is 2 for usage and configuration errors, 1 for failed work', () => {
    expect(exitCodeFor(new UsageError('say what'))).toBe(2);
    expect(exitCodeFor(new ConfigError(['x']))).toBe(2);
    expect(exitCodeFor(new Error('workflow failed'))).toBe(1);
    expect(exitCodeFor(new CommanderError(0, 'commander.helpDisplayed', '(outputHelp)'))).toBe(0);
  });
});

describe('cli: failed workflows', () => {
  it('reports the root cause, not "Workflow execution failed"', () => {
    const cause = ApplicationFailure.nonRetryable('VM 9003 is locked (backup)', 'VmLocked');
    const activity = new ActivityFailure(
      'activity failed',
      'stopVm',
      '7',
      RetryState.NON_RETRYABLE_FAILURE,
      'worker',
      cause,
    );
    const err = new WorkflowFailedError('Workflow execution failed', activity, RetryState.NON_RETRYABLE_FAILURE);
    expect(rootCauseMessage(err)).toBe('VM 9003 is locked (backup)');
    expect(rootCauseMessage(new Error('plain'))).toBe('plain');
  });
});

describe('cli: targets', () => {
  it('looks a bare name up as a wave (not its VM workflows) or as a VM', () => {
    expect(targetQuery('lab-1')).toBe("((FerryKind = 'wave' AND WaveId = 'lab-1') OR VmName = 'lab-1')");
    expect(targetQuery("it's", ['migrate', 'wave'])).toBe(
      "((FerryKind = 'wave' AND WaveId = 'it\\'s') OR VmName = 'it\\'s') AND FerryKind IN ('migrate', 'wave')",
    );
  });
});

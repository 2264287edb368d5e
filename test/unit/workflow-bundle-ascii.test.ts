import { readFileSync } from 'node:fs';
import { runInNewContext } from 'node:vm';
import { asciiOnly } from '../../worker/workflow-bundle';
import { workflowBundlePath } from '../helpers/temporal';

/** What a script leaves in `result`, run in a fresh context. */
function evaluate(code: string): unknown {
  const sandbox: { result?: unknown } = {};
  runInNewContext(code, sandbox);
  return JSON.parse(JSON.stringify(sandbox.result));
}

describe('the workflow bundle in ASCII (one byte per character in V8)', () => {
  it('escapes non-ASCII characters without changing what strings, templates, regular expressions and identifiers mean', () => {
    const code = [
      '// a comment — with 𝑊 and √',
      'const café = "a—b → c…";',
      'const t = `x ≤ ${café.length} ✖`;',
      'const matches = /[—–]/.test("1–2") && /→/u.test("→") && /😀/u.test("😀");',
      'result = { café, t, matches, emoji: "😀".length, latin: "é" };',
    ].join('\n');
    const escaped = asciiOnly(code);
    expect(escaped).not.toMatch(/[\u0080-\uffff]/);
    expect(escaped).toContain('"a\\u2014b \\u2192 c\\u2026"');
    expect(evaluate(escaped)).toEqual(evaluate(code));
    expect(evaluate(escaped)).toEqual({ café: 'a—b → c…', t: 'x ≤ 8 ✖', matches: true, emoji: 2, latin: 'é' });
  });

  it('keeps code that would no longer parse (an astral character in an identifier) as it was', () => {
    const code = 'const 𝑊 = 2; result = 𝑊 * "—".length;';
    expect(asciiOnly(code)).toBe(code);
    expect(evaluate(code)).toBe(2);
  });

  it('leaves ASCII code alone', () => {
    const code = 'result = "plain";';
    expect(asciiOnly(code)).toBe(code);
  });

  it('the bundle the tests run is ASCII', () => {
    expect(readFileSync(workflowBundlePath(), 'utf8')).not.toMatch(/[\u0080-\uffff]/);
  });
});

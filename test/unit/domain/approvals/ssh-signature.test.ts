import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { ed25519 } from '@noble/curves/ed25519';
import { sshSign } from '../../../../src/approval-signing';
import {
  fromBase64,
  parsePublicKey,
  parseSshSignature,
  signatureProblem,
  toBase64,
} from '../../../../src/domain/approvals';
import { makeKeys } from '../../../helpers/ssh-keys';

const keyBytes = (line: string): Uint8Array => {
  const parsed = parsePublicKey(line);
  if ('problem' in parsed) throw new Error(parsed.problem);
  return parsed.key;
};

/** Re-armors a signature blob changed by `change`. */
function tampered(armored: string, change: (blob: Uint8Array) => void): string {
  const body = armored.replace(/-----(BEGIN|END) SSH SIGNATURE-----/g, '');
  const blob = fromBase64(body)!;
  change(blob);
  return `-----BEGIN SSH SIGNATURE-----\n${toBase64(blob)}\n-----END SSH SIGNATURE-----`;
}

describe('SSHSIG signatures made by the real ssh-keygen', () => {
  const { keys, dir, remove } = makeKeys('alice', 'bob');
  afterAll(remove);
  const message = '{"action":"approve-cutover","by":"alice","reason":"window 7 ✓"}';
  let signature = '';
  beforeAll(async () => {
    signature = await sshSign(keys.alice!.file, message);
  });

  it('parses and verifies with the signer’s key', () => {
    const parsed = parseSshSignature(signature);
    expect(parsed).toMatchObject({ namespace: 'ferry-approval', hashAlgorithm: 'sha512' });
    expect(signatureProblem(message, signature, keyBytes(keys.alice!.publicLine))).toBeUndefined();
  });

  it('agrees with ssh-keygen -Y verify on the same files', () => {
    const signers = path.join(dir, 'allowed');
    writeFileSync(signers, `alice ${keys.alice!.publicLine}\n`);
    writeFileSync(path.join(dir, 'msg.sig'), signature);
    const out = execFileSync(
      'ssh-keygen',
      ['-Y', 'verify', '-f', signers, '-I', 'alice', '-n', 'ferry-approval', '-s', path.join(dir, 'msg.sig')],
      { input: message },
    );
    expect(out.toString()).toContain('Good "ferry-approval" signature for alice');
  });

  it('refuses another key, another message, a flipped bit and another namespace', async () => {
    expect(signatureProblem(message, signature, keyBytes(keys.bob!.publicLine))).toBe('signed with another key');
    expect(signatureProblem(`${message} `, signature, keyBytes(keys.alice!.publicLine))).toBe(
      'the signature does not match',
    );
    const flipped = tampered(signature, (blob) => (blob[blob.length - 5]! ^= 1));
    expect(signatureProblem(message, flipped, keyBytes(keys.alice!.publicLine))).toBe('the signature does not match');
    // The embedded key swapped for bob's: the signature still is not bob's.
    const swapped = tampered(signature, (blob) =>
      blob.set(fromBase64(keys.bob!.publicLine.split(' ')[1]!)!.subarray(19), 10 + 4 + 19),
    );
    expect(signatureProblem(message, swapped, keyBytes(keys.bob!.publicLine))).toBe('the signature does not match');
    const git = execFileSync('ssh-keygen', ['-q', '-Y', 'sign', '-f', keys.alice!.file, '-n', 'git'], {
      input: message,
    }).toString();
    expect(signatureProblem(message, git, keyBytes(keys.alice!.publicLine))).toMatch(/namespace "git"/);
    expect(
      signatureProblem(
        message,
        signature.slice(0, 120) + '\n-----END SSH SIGNATURE-----',
        keyBytes(keys.alice!.publicLine),
      ),
    ).toMatch(/truncated|malformed|base64/);
    expect(signatureProblem(message, 'not a signature', keyBytes(keys.alice!.publicLine))).toMatch(
      /expected an armored SSH signature/,
    );
  });
});

describe('raw ed25519 keys and signatures', () => {
  const secret = ed25519.utils.randomPrivateKey();
  const pub = ed25519.getPublicKey(secret);
  const message = 'approve';

  it('takes the key as base64 or hex, and a base64 signature over the message itself', () => {
    const sig = toBase64(ed25519.sign(new TextEncoder().encode(message), secret));
    for (const text of [toBase64(pub), Buffer.from(pub).toString('hex')]) {
      const parsed = parsePublicKey(text);
      expect('key' in parsed && Buffer.from(parsed.key).equals(Buffer.from(pub))).toBe(true);
      expect(signatureProblem(message, sig, pub)).toBeUndefined();
    }
    expect(signatureProblem('approve!', sig, pub)).toBe('the signature does not match');
  });

  it('says what is wrong with a key that is not ed25519', () => {
    expect(parsePublicKey('ssh-rsa AAAAB3NzaC1yc2E alice')).toEqual({
      problem: expect.stringMatching(/ssh-rsa keys are not supported/),
    });
    expect(parsePublicKey('ssh-ed25519 AAAA')).toEqual({
      problem: expect.stringMatching(/not a valid ssh-ed25519 key/),
    });
    expect(parsePublicKey('alice')).toEqual({ problem: expect.stringMatching(/expected "ssh-ed25519/) });
  });
});

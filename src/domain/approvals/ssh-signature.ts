import { ed25519 } from '@noble/curves/ed25519';
import { sha256, sha512 } from '@noble/hashes/sha2';
import { concatBytes, fromBase64, fromHex, sameBytes, SshReader, sshString, utf8 } from './bytes';

/**
 * Ed25519 signatures as OpenSSH makes them (`ssh-keygen -Y sign`, the SSHSIG format of OpenSSH's
 * PROTOCOL.sshsig) or raw (64 bytes over the message itself), checked in plain TypeScript with
 * @noble/curves so that workflow code can check them deterministically.
 */

/** The namespace ferry's approvals are signed in (`ssh-keygen -Y sign -n ferry-approval`). */
export const APPROVAL_NAMESPACE = 'ferry-approval';

const ARMOR_BEGIN = '-----BEGIN SSH SIGNATURE-----';
const ARMOR_END = '-----END SSH SIGNATURE-----';
const ED25519 = 'ssh-ed25519';

/**
 * An approver's public key as ferry.yaml gives it: an OpenSSH line (`ssh-ed25519 AAAA… comment`) or a
 * raw ed25519 key (32 bytes, base64 or hex). Returns the 32 key bytes, or why the text is not a key.
 */
export function parsePublicKey(text: string): { key: Uint8Array } | { problem: string } {
  const trimmed = text.trim();
  const [type, blob] = trimmed.split(/\s+/);
  if (type === ED25519 && blob !== undefined) {
    const bytes = fromBase64(blob);
    const key = bytes && readKeyBlob(bytes);
    return key ? { key } : { problem: 'not a valid ssh-ed25519 key (its base64 part does not hold an ed25519 key)' };
  }
  if (type?.startsWith('ssh-') || type?.startsWith('ecdsa-') || type?.startsWith('sk-')) {
    return {
      problem: `${type} keys are not supported: ferry approvals are signed with ed25519 (ssh-keygen -t ed25519)`,
    };
  }
  const raw = /^[0-9a-fA-F]{64}$/.test(trimmed) ? fromHex(trimmed) : fromBase64(trimmed);
  if (raw?.length === 32) return { key: raw };
  return { problem: 'expected "ssh-ed25519 AAAA…" or a raw ed25519 public key (32 bytes, base64 or hex)' };
}

/** An SSH public key blob (string "ssh-ed25519", string key) → the 32 key bytes. */
function readKeyBlob(blob: Uint8Array): Uint8Array | undefined {
  try {
    const r = new SshReader(blob);
    if (r.text() !== ED25519) return undefined;
    const key = r.string();
    return key.length === 32 && r.done ? key : undefined;
  } catch {
    return undefined;
  }
}

export interface SshSignature {
  publicKey: Uint8Array;
  namespace: string;
  hashAlgorithm: 'sha256' | 'sha512';
  signature: Uint8Array;
}

/** Reads an armored SSHSIG (`-----BEGIN SSH SIGNATURE-----`), or says why it cannot. */
export function parseSshSignature(armored: string): SshSignature | { problem: string } {
  const text = armored.trim();
  if (!text.startsWith(ARMOR_BEGIN) || !text.endsWith(ARMOR_END)) return { problem: 'not an armored SSH signature' };
  const blob = fromBase64(text.slice(ARMOR_BEGIN.length, -ARMOR_END.length));
  if (!blob) return { problem: 'the SSH signature is not valid base64' };
  try {
    const r = new SshReader(blob);
    if (String.fromCharCode(...r.raw(6)) !== 'SSHSIG')
      return { problem: 'not an SSHSIG signature (no SSHSIG preamble)' };
    if (r.uint32() !== 1) return { problem: 'unsupported SSHSIG version' };
    const publicKey = readKeyBlob(r.string());
    const namespace = r.text();
    r.string(); // reserved
    const hashAlgorithm = r.text();
    const sig = new SshReader(r.string());
    if (!publicKey || sig.text() !== ED25519) return { problem: 'the SSH signature is not an ed25519 signature' };
    if (hashAlgorithm !== 'sha256' && hashAlgorithm !== 'sha512')
      return { problem: `unsupported SSHSIG hash ${hashAlgorithm}` };
    const signature = sig.string();
    if (signature.length !== 64 || !r.done || !sig.done) return { problem: 'the SSH signature is malformed' };
    return { publicKey, namespace, hashAlgorithm, signature };
  } catch {
    return { problem: 'the SSH signature is truncated' };
  }
}

/** The bytes an SSHSIG signature signs (PROTOCOL.sshsig: preamble, namespace, reserved, hash, H(message)). */
function sshsigSignedData(message: Uint8Array, namespace: string, hashAlgorithm: 'sha256' | 'sha512'): Uint8Array {
  const digest = hashAlgorithm === 'sha256' ? sha256(message) : sha512(message);
  return concatBytes(
    utf8('SSHSIG'),
    sshString(utf8(namespace)),
    sshString(new Uint8Array()),
    sshString(utf8(hashAlgorithm)),
    sshString(digest),
  );
}

function ed25519Verifies(signature: Uint8Array, data: Uint8Array, key: Uint8Array): boolean {
  try {
    return ed25519.verify(signature, data, key, { zip215: false });
  } catch {
    return false;
  }
}

/**
 * Whether `signature` (armored SSHSIG in ferry's namespace, or a raw ed25519 signature in base64) signs
 * `message` with `key`. Returns undefined when it does, else why not.
 */
export function signatureProblem(message: string, signature: string, key: Uint8Array): string | undefined {
  const bytes = utf8(message);
  if (signature.trim().startsWith(ARMOR_BEGIN)) {
    const sig = parseSshSignature(signature);
    if ('problem' in sig) return sig.problem;
    if (sig.namespace !== APPROVAL_NAMESPACE)
      return `signed in namespace "${sig.namespace}", not "${APPROVAL_NAMESPACE}" (ssh-keygen -Y sign -n ${APPROVAL_NAMESPACE})`;
    if (!sameBytes(sig.publicKey, key)) return 'signed with another key';
    return ed25519Verifies(sig.signature, sshsigSignedData(bytes, sig.namespace, sig.hashAlgorithm), key)
      ? undefined
      : 'the signature does not match';
  }
  const raw = fromBase64(signature);
  if (raw?.length !== 64) return 'expected an armored SSH signature or a raw ed25519 signature (64 bytes, base64)';
  return ed25519Verifies(raw, bytes, key) ? undefined : 'the signature does not match';
}

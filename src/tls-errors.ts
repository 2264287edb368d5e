/**
 * Node/OpenSSL TLS failures that retrying cannot fix: the certificate is not trusted, not valid (yet or
 * any more), revoked or for another name, or the port does not speak TLS at all. Every HTTPS client
 * (Proxmox, NetBox, vSphere) classifies them here, as a configuration error (CA file, validateCerts,
 * host or port), never as a transient network failure.
 */
export interface TlsProblem {
  /** Node's error code, e.g. `CERT_HAS_EXPIRED`. */
  code: string;
  /** What it means, for the error message. */
  problem: string;
}

const UNTRUSTED = 'the certificate is not trusted (not signed by a CA this client trusts)';

/** X509 verification codes (as Node names them) and TLS handshake codes, with what each means. */
const PROBLEMS: Record<string, string> = {
  DEPTH_ZERO_SELF_SIGNED_CERT: 'the certificate is self-signed and not trusted',
  SELF_SIGNED_CERT_IN_CHAIN: 'a self-signed certificate in the chain is not trusted',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: UNTRUSTED,
  UNABLE_TO_GET_ISSUER_CERT: UNTRUSTED,
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: UNTRUSTED,
  CERT_UNTRUSTED: UNTRUSTED,
  CERT_REJECTED: 'the certificate is rejected for this purpose',
  INVALID_CA: 'a CA certificate in the chain is not a valid CA',
  INVALID_PURPOSE: 'the certificate is not meant for a TLS server',
  PATH_LENGTH_EXCEEDED: 'the certificate chain is longer than its CA allows',
  CERT_CHAIN_TOO_LONG: 'the certificate chain is too long',
  CERT_SIGNATURE_FAILURE: 'the certificate signature is invalid',
  UNABLE_TO_DECRYPT_CERT_SIGNATURE: 'the certificate signature is invalid',
  UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY: 'the issuer public key cannot be read',
  CERT_HAS_EXPIRED: 'the certificate has expired',
  CERT_NOT_YET_VALID: 'the certificate is not valid yet (check the clocks)',
  ERROR_IN_CERT_NOT_BEFORE_FIELD: 'the certificate validity dates are malformed',
  ERROR_IN_CERT_NOT_AFTER_FIELD: 'the certificate validity dates are malformed',
  CERT_REVOKED: 'the certificate has been revoked',
  HOSTNAME_MISMATCH: 'the certificate is for another host name',
  ERR_TLS_CERT_ALTNAME_INVALID: 'the certificate is for another host name',
  ERR_SSL_WRONG_VERSION_NUMBER: 'TLS spoken to a plain port (the port does not speak HTTPS)',
  ERR_SSL_UNSUPPORTED_PROTOCOL: 'the server offers no TLS version this client accepts',
  ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION: 'the server accepts no TLS version this client offers',
  ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE: 'the TLS handshake failed (no common cipher or protocol)',
};

/** The TLS problem behind an error (its code, or that of an error in its `cause` chain), if it is one. */
export function tlsProblem(err: unknown): TlsProblem | undefined {
  for (
    let e: unknown = err, depth = 0;
    e && typeof e === 'object' && depth < 10;
    e = (e as { cause?: unknown }).cause, depth++
  ) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && Object.hasOwn(PROBLEMS, code)) return { code, problem: PROBLEMS[code]! };
  }
  return undefined;
}

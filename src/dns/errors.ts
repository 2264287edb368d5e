import { FerryError, type ErrorCategory, type FerryErrorOptions } from '../errors';

/** Response codes (RFC 1035, 2136) and TSIG error codes (RFC 8945) by number. */
export const RCODES: Record<number, string> = {
  0: 'NOERROR',
  1: 'FORMERR',
  2: 'SERVFAIL',
  3: 'NXDOMAIN',
  4: 'NOTIMP',
  5: 'REFUSED',
  6: 'YXDOMAIN',
  7: 'YXRRSET',
  8: 'NXRRSET',
  9: 'NOTAUTH',
  10: 'NOTZONE',
  16: 'BADSIG',
  17: 'BADKEY',
  18: 'BADTIME',
  22: 'BADTRUNC',
};

export const rcodeName = (code: number): string => RCODES[code] ?? `RCODE${code}`;

/** Any failure talking to the DNS server. `rcode`/`tsigError` name the server's answer when there was one. */
export class DnsError extends FerryError {
  readonly rcode?: string;
  readonly tsigError?: string;

  constructor(
    message: string,
    category: ErrorCategory,
    options: FerryErrorOptions & { rcode?: string; tsigError?: string } = {},
  ) {
    super(message, category, {
      ...options,
      details: { ...options.details, rcode: options.rcode, tsigError: options.tsigError },
    });
    this.rcode = options.rcode;
    this.tsigError = options.tsigError;
  }
}

/**
 * The record exists and points elsewhere: ferry refuses to overwrite it. A person decides whether the
 * other record is stale.
 */
export class DnsRecordConflictError extends DnsError {
  constructor(
    message: string,
    readonly current: string[],
  ) {
    super(message, 'policy', { details: { current } });
  }
}

/** Turns an unexpected response code into an error that says what it means for an update. */
export function rcodeError(
  rcode: number,
  tsigError: number,
  context: { server: string; zone: string; keyName?: string },
): DnsError {
  const name = rcodeName(rcode);
  const tsig = tsigError ? rcodeName(tsigError) : undefined;
  const at = `${context.server} (zone ${context.zone})`;
  const key = context.keyName ? `TSIG key "${context.keyName}"` : 'the TSIG key';
  const opts = { rcode: name, tsigError: tsig };
  switch (tsig) {
    case 'BADSIG':
      return new DnsError(
        `${at} rejected ${key}: BADSIG, the secret does not match the server's (check FERRY_DNS_TSIG_SECRET)`,
        'permission',
        opts,
      );
    case 'BADKEY':
      return new DnsError(
        `${at} rejected ${key}: BADKEY, the server has no key of that name and algorithm`,
        'permission',
        opts,
      );
    case 'BADTIME':
      return new DnsError(
        `${at} rejected ${key}: BADTIME, the clocks of this worker and the server differ by more than the fudge (300 s)`,
        'invalid',
        opts,
      );
  }
  switch (name) {
    case 'REFUSED':
      return new DnsError(
        `${at} REFUSED the update: the key is not allowed to change this name (update-policy / allow-update)`,
        'permission',
        opts,
      );
    case 'NOTAUTH':
      return new DnsError(
        `${at} answered NOTAUTH: it is not authoritative for the zone, or did not accept the key`,
        'permission',
        opts,
      );
    case 'NOTZONE':
      return new DnsError(`${at} answered NOTZONE: a name in the update is outside the zone`, 'invalid', opts);
    case 'SERVFAIL':
      return new DnsError(`${at} answered SERVFAIL`, 'transient', opts);
    case 'FORMERR':
    case 'NOTIMP':
      return new DnsError(
        `${at} answered ${name}: it does not understand the request (does it take RFC 2136 updates?)`,
        'invalid',
        opts,
      );
    default:
      return new DnsError(`${at} answered ${name}`, 'invalid', opts);
  }
}

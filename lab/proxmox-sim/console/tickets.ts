import { createHmac, randomBytes } from 'node:crypto';
import { ApiError } from '../api-error';

/**
 * PVE's short-lived tickets (pve-access-control's assemble_vnc_ticket / assemble_tunnel_ticket over
 * pve-common's assemble_rsa_ticket): `PREFIX:TIMESTAMP::SIGNATURE`, the signature over the plain part
 * plus `user:path[:port]`, so the ticket names neither user nor path and is good only for them. PVE signs
 * with the cluster's RSA key; the simulator signs with an HMAC of a key of its own (a client can only
 * pass the ticket back, never check it). Valid from 20 s before to 40 s after its timestamp, as PVE's.
 */
const KEY = randomBytes(32);
const MIN_AGE_S = -20;
const MAX_AGE_S = 40;

const sign = (text: string) => createHmac('sha256', KEY).update(text).digest('base64');
const secretData = (user: string, path: string, extra?: string | number) =>
  `${user}:${path}${extra !== undefined ? `:${extra}` : ''}`;

export function assembleTicket(
  prefix: 'PVEVNC' | 'PVETUNNEL',
  user: string,
  path: string,
  extra?: string | number,
): string {
  const plain = `${prefix}:${Math.floor(Date.now() / 1000)
    .toString(16)
    .toUpperCase()
    .padStart(8, '0')}`;
  return `${plain}::${sign(`${plain}:${secretData(user, path, extra)}`)}`;
}

/** verify_rsa_ticket: throws PVE's 401 "permission denied - invalid PREFIX ticket" unless valid. */
export function verifyTicket(
  prefix: 'PVEVNC' | 'PVETUNNEL',
  ticket: string,
  user: string,
  path: string,
  extra?: string | number,
): void {
  const match = /^(\S+:([0-9A-F]{8}))::([^:\s]+)$/.exec(ticket);
  const ok =
    match &&
    match[1]!.startsWith(`${prefix}:`) &&
    sign(`${match[1]}:${secretData(user, path, extra)}`) === match[3] &&
    (() => {
      const age = Date.now() / 1000 - parseInt(match[2]!, 16);
      return age > MIN_AGE_S && age < MAX_AGE_S;
    })();
  if (!ok) throw new ApiError(401, `permission denied - invalid ${prefix} ticket`);
}

/** verify_vnc_ticket also takes vncproxy's `password:ticket` form (the password is 8 characters). */
export function verifyVncTicket(ticket: string, user: string, path: string, port: number): void {
  verifyTicket('PVEVNC', /^.{8}:(PVEVNC:.*)$/.exec(ticket)?.[1] ?? ticket, user, path, port);
}

/** PVE::Ticket::generate_vnc_password: 8 printable ASCII characters ('!' .. '~'). */
export function generateVncPassword(): string {
  return [...randomBytes(8)].map((b) => String.fromCharCode(0x21 + (b % 94))).join('');
}

/** assemble_spice_ticket: a random SHA-1 hex password and the proxy ticket remote-viewer passes as `host`. */
export function assembleSpiceTicket(vmid: number, node: string): { ticket: string; proxyTicket: string } {
  const ticket = createHmac('sha1', KEY).update(randomBytes(16)).digest('hex');
  const plain = `pvespiceproxy:${Math.floor(Date.now() / 1000)
    .toString(16)
    .padStart(8, '0')}:${vmid}:${node.toLowerCase()}`;
  return { ticket, proxyTicket: `${plain}::${createHmac('sha1', KEY).update(plain).digest('hex')}` };
}

import { NODE_NAME } from './node-name';

/**
 * Proxmox task ids: `UPID:node:PID:PSTART:STARTTIME:type:id:user:` (PID, PSTART, STARTTIME in hex;
 * PID and STARTTIME 8 digits, PSTART 8 or more).
 */
export interface Upid {
  upid: string;
  node: string;
  pid: number;
  pstart: number;
  /** Unix seconds. */
  starttime: number;
  type: string;
  /** The object the task works on (a VMID for qm* tasks), may be empty. */
  id: string;
  user: string;
}

const UPID_RE = new RegExp(
  `^UPID:(${NODE_NAME}):([0-9A-Fa-f]{8}):([0-9A-Fa-f]{8,9}):([0-9A-Fa-f]{8}):([^:\\s]+):([^:\\s]*):([^:\\s]+):$`,
);

export function parseUpid(text: string): Upid {
  const m = UPID_RE.exec(text);
  if (!m) throw new Error(`not a Proxmox task id (UPID:node:pid:pstart:starttime:type:id:user:): "${text}"`);
  return {
    upid: text,
    node: m[1]!,
    pid: parseInt(m[2]!, 16),
    pstart: parseInt(m[3]!, 16),
    starttime: parseInt(m[4]!, 16),
    type: m[5]!,
    id: m[6]!,
    user: m[7]!,
  };
}

export function isUpid(value: unknown): value is string {
  return typeof value === 'string' && UPID_RE.test(value);
}

const hex = (n: number, width: number) => n.toString(16).toUpperCase().padStart(width, '0');

export function formatUpid(u: Omit<Upid, 'upid'>): string {
  return `UPID:${u.node}:${hex(u.pid, 8)}:${hex(u.pstart, 8)}:${hex(u.starttime, 8)}:${u.type}:${u.id}:${u.user}:`;
}

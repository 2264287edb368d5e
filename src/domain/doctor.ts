/** Endpoints `doctor` can check; only the configured ones are checked. */
export const ENDPOINTS = ['temporal', 'proxmox', 'vsphere', 'netbox', 'dns'] as const;
export type Endpoint = (typeof ENDPOINTS)[number];

export interface EndpointRef {
  endpoint: Endpoint;
  /** Where it is (URL or host:port), never a credential. */
  target: string;
}

export type TlsStatus = 'verified' | 'not-verified' | 'plaintext' | 'failed' | 'not-applicable';

export interface EndpointVerdict extends EndpointRef {
  ok: boolean;
  reachable: boolean;
  /** null when the check never got as far as presenting credentials. */
  authenticated: boolean | null;
  tls: TlsStatus;
  version?: string;
  /** One line a person can act on. */
  detail: string;
  latencyMs: number;
}

export interface DoctorReport {
  ok: boolean;
  verdicts: EndpointVerdict[];
}

export function doctorReport(verdicts: EndpointVerdict[]): DoctorReport {
  return { ok: verdicts.length > 0 && verdicts.every((v) => v.ok), verdicts };
}

export function formatVerdict(v: EndpointVerdict): string {
  const mark = v.ok ? 'ok  ' : 'FAIL';
  const version = v.version ? ` ${v.version}` : '';
  return `${mark} ${v.endpoint.padEnd(8)} ${v.target}${version} [tls: ${v.tls}] ${v.detail} (${v.latencyMs} ms)`;
}

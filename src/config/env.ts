/**
 * Environment variables ferry reads. Names follow the Ansible collections operators already use
 * (community.proxmox, community.vmware, netbox.netbox) and Temporal's own CLI.
 */
export type EnvKind = 'string' | 'boolean' | 'integer';

export interface EnvBinding {
  env: string;
  path: readonly string[];
  kind: EnvKind;
  /** Secrets may come only from the environment; ferry.yaml must not hold them. */
  secret?: boolean;
}

const b = (env: string, path: string, kind: EnvKind = 'string', secret = false): EnvBinding => ({
  env,
  path: path.split('.'),
  kind,
  secret,
});

export const ENV_BINDINGS: readonly EnvBinding[] = [
  b('TEMPORAL_ADDRESS', 'temporal.address'),
  b('TEMPORAL_NAMESPACE', 'temporal.namespace'),
  b('FERRY_TASK_QUEUE', 'worker.taskQueue'),
  b('TEMPORAL_API_KEY', 'temporal.apiKey', 'string', true),
  b('TEMPORAL_TLS', 'temporal.tls.enabled', 'boolean'),
  b('TEMPORAL_TLS_SERVER_CA_CERT_PATH', 'temporal.tls.serverCaFile'),
  b('TEMPORAL_TLS_CLIENT_CERT_PATH', 'temporal.tls.clientCertFile'),
  b('TEMPORAL_TLS_CLIENT_KEY_PATH', 'temporal.tls.clientKeyFile'),
  b('TEMPORAL_TLS_SERVER_NAME', 'temporal.tls.serverName'),
  b('PROXMOX_HOST', 'proxmox.host'),
  b('PROXMOX_PORT', 'proxmox.port', 'integer'),
  b('PROXMOX_USER', 'proxmox.user'),
  b('PROXMOX_TOKEN_ID', 'proxmox.tokenId'),
  b('PROXMOX_TOKEN_SECRET', 'proxmox.tokenSecret', 'string', true),
  b('PROXMOX_PASSWORD', 'proxmox.password', 'string', true),
  b('PROXMOX_PRIVILEGED_PASSWORD', 'proxmox.privilegedPassword', 'string', true),
  b('PROXMOX_VALIDATE_CERTS', 'proxmox.validateCerts', 'boolean'),
  b('PROXMOX_CA_FILE', 'proxmox.caFile'),
  b('VMWARE_HOST', 'vsphere.host'),
  b('VMWARE_PORT', 'vsphere.port', 'integer'),
  b('VMWARE_USER', 'vsphere.user'),
  b('VMWARE_PASSWORD', 'vsphere.password', 'string', true),
  b('VMWARE_VALIDATE_CERTS', 'vsphere.validateCerts', 'boolean'),
  b('VMWARE_CA_FILE', 'vsphere.caFile'),
  b('NETBOX_URL', 'netbox.url'),
  b('NETBOX_TOKEN', 'netbox.token', 'string', true),
  b('NETBOX_VALIDATE_CERTS', 'netbox.validateCerts', 'boolean'),
  b('NETBOX_CA_FILE', 'netbox.caFile'),
  b('FERRY_NETBOX_WEBHOOK_URL', 'netbox.webhook.url'),
  b('FERRY_NETBOX_WEBHOOK_LISTEN', 'netbox.webhook.listen'),
  b('FERRY_NETBOX_WEBHOOK_SECRET', 'netbox.webhook.secret', 'string', true),
  b('FERRY_DNS_SERVER', 'dns.server'),
  b('FERRY_DNS_PORT', 'dns.port', 'integer'),
  b('FERRY_DNS_TSIG_KEY_NAME', 'dns.tsigKeyName'),
  b('FERRY_DNS_TSIG_SECRET', 'dns.tsigSecret', 'string', true),
  b('FERRY_DNS_TTL', 'dns.ttl', 'integer'),
  b('FERRY_KNOWN_HOSTS_FILE', 'knownHosts.file'),
];

const TRUE = new Set(['1', 'true', 'yes', 'on']);
const FALSE = new Set(['0', 'false', 'no', 'off']);

/** Converts an environment string to the binding's kind, or explains why it cannot. */
export function parseEnvValue(binding: EnvBinding, raw: string): { value: unknown } | { error: string } {
  const text = raw.trim();
  switch (binding.kind) {
    case 'string':
      return { value: raw };
    case 'boolean':
      if (TRUE.has(text.toLowerCase())) return { value: true };
      if (FALSE.has(text.toLowerCase())) return { value: false };
      return { error: `expected true/false (or 1/0, yes/no), got "${raw}"` };
    case 'integer':
      if (/^\d+$/.test(text)) return { value: Number(text) };
      return { error: `expected a whole number, got "${raw}"` };
  }
}

import { fqdn, hostAddress, provisionStep } from '../../../src/domain/provisioning';
import type { VmBuild } from '../run-context';

/** The A and PTR records of the VM's address. */
export async function registerDns({ acts, spec, settings, status, enter, record }: VmBuild): Promise<void> {
  enter('dns');
  if (!spec.dnsZone || !status.address || !settings.has.dns) {
    record(
      provisionStep(
        'dns-a',
        spec.name,
        'skipped',
        !settings.has.dns
          ? 'DNS is not configured'
          : !spec.dnsZone
            ? 'no DNS zone (provisioning.dnsZone)'
            : 'no address',
      ),
    );
    return;
  }
  const name = fqdn(spec.name, spec.dnsZone);
  const address = hostAddress(status.address);
  status.fqdn = name;
  for (const type of ['A', 'PTR'] as const) {
    const { outcome } = await acts.write.ensureDnsRecord.executeWithOptions(
      { summary: `DNS ${type} ${name} ↔ ${address}` },
      [{ type, name, address }],
    );
    record(
      provisionStep(
        type === 'A' ? 'dns-a' : 'dns-ptr',
        type === 'A' ? `${name} A ${address}` : `${address} PTR ${name}`,
        outcome,
      ),
    );
  }
}

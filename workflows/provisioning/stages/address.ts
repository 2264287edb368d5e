import { fqdn, provisionStep } from '../../../src/domain/provisioning';
import type { VmBuild } from '../run-context';
import type { InterfaceIds } from './netbox';

/** The first NIC's address, from the prefix (NetBox looks first, then allocates), made the primary IP. */
export async function assignAddress(
  { acts, spec, status, enter, record, known }: VmBuild,
  interfaceIds: InterfaceIds,
): Promise<void> {
  enter('address');
  const first = spec.nics[0];
  if (!spec.prefix || !first || spec.netboxId === undefined) {
    record(
      provisionStep(
        'ip',
        first?.slot ?? '-',
        'skipped',
        spec.prefix ? 'no NetBox record or NIC' : 'no prefix (provisioning.prefix)',
      ),
    );
    return;
  }
  const dnsName = spec.dnsZone ? fqdn(spec.name, spec.dnsZone) : undefined;
  const ip = await acts.write.assignNetboxIp.executeWithOptions(
    { summary: `address for ${spec.name} ${first.slot} from ${spec.prefix}` },
    [
      {
        netboxId: spec.netboxId,
        interfaceId: interfaceIds.ids[first.slot]!,
        prefix: spec.prefix,
        ...(dnsName ? { dnsName } : {}),
        // A new interface has no address to look for (the activity still looks if an earlier attempt made one).
        ...(interfaceIds.created.includes(first.slot) ? { newInterface: true } : {}),
      },
    ],
  );
  // The primary-address write changed the VM: what it answered is the version to guard the next write with.
  if (ip.primary !== 'unchanged') known.seen = ip.seen;
  status.address = ip.address;
  record(provisionStep('ip', ip.address, ip.outcome, `${first.slot}, from ${spec.prefix}`));
  record(provisionStep('primary-ip', ip.address, ip.primary));
}

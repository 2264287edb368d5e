import type { VmRecord } from '../inventory';

type Hardware = Pick<VmRecord, 'disks' | 'nics' | 'tpm'>;

/**
 * How the VMware VM's disks (keys, labels, sizes), NICs (MACs) and vTPM differ now from when the
 * migration was planned (and approved). The cutover builds exactly the planned disks and MACs, so any
 * difference means the approval was for another VM: ferry stops before shutting anything down. Empty
 * when nothing relevant changed.
 */
export function hardwareChanges(planned: Hardware, fresh: Hardware): string[] {
  const changes: string[] = [];
  const disk = (d: { label: string; key: number }) => `${d.label} (key ${d.key})`;
  for (const p of planned.disks) {
    const now = fresh.disks.find((d) => d.key === p.key);
    if (!now) changes.push(`disk ${disk(p)} was removed`);
    else if (now.label !== p.label) changes.push(`disk key ${p.key} was ${p.label}, is now ${now.label}`);
    // A grown disk no longer matches the planned size the cutover verifies against (after the shutdown).
    else if (now.capacityBytes !== p.capacityBytes)
      changes.push(`disk ${disk(p)} was ${p.capacityBytes} bytes, is now ${now.capacityBytes}`);
  }
  for (const f of fresh.disks)
    if (!planned.disks.some((d) => d.key === f.key)) changes.push(`disk ${disk(f)} was added`);

  const mac = (m: string) => m.toLowerCase();
  for (const p of planned.nics) {
    const now = fresh.nics.find((n) => n.key === p.key);
    if (!now) changes.push(`NIC ${p.label} (${p.macAddress}) was removed`);
    else if (mac(now.macAddress) !== mac(p.macAddress))
      changes.push(`NIC ${p.label} MAC changed from ${p.macAddress} to ${now.macAddress}`);
  }
  for (const f of fresh.nics)
    if (!planned.nics.some((n) => n.key === f.key)) changes.push(`NIC ${f.label} (${f.macAddress}) was added`);
  // The shell's TPM (or its absence, or the refusal) was decided on the planned VM.
  if (!planned.tpm && fresh.tpm) changes.push(`a virtual TPM (${fresh.tpm.label}) was added`);
  if (planned.tpm && !fresh.tpm) changes.push(`the virtual TPM (${planned.tpm.label}) was removed`);
  return changes;
}

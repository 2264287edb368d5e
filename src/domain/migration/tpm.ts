import type { VmRecord } from '../inventory';
import type { TpmStateSpec } from '../pve-vm-spec';
import { refusal, type Refusal } from './refusal';

/**
 * `migration.tpm`: a VMware vTPM's secrets are sealed in the VM's encrypted files and cannot move.
 * `refuse` (default): such a VM is not migrated. `new`: it gets a fresh, empty TPM 2.0 (`tpmstate0`).
 */
export type TpmPolicy = 'refuse' | 'new';

/** The refusal of a VM with a vTPM, unless the policy gives it a new TPM. */
export function tpmRefusals(vm: Pick<VmRecord, 'name' | 'tpm'>, policy: TpmPolicy = 'refuse'): Refusal[] {
  if (!vm.tpm || policy === 'new') return [];
  return [
    refusal(
      'vtpm',
      vm.tpm.label,
      `${vm.name} has a virtual TPM, whose secrets cannot be carried over to Proxmox; set migration.tpm: new to give it a new, empty TPM ` +
        '(anything sealed to the old TPM, such as BitLocker keys, then needs its recovery key), or remove the vTPM in vCenter first',
    ),
  ];
}

/** A vSphere vTPM is a TPM 2.0: with `new`, the Proxmox VM gets a new TPM 2.0 state volume. */
export function tpmState(
  vm: Pick<VmRecord, 'tpm'>,
  policy: TpmPolicy = 'refuse',
  storage: string,
): TpmStateSpec | undefined {
  return vm.tpm && policy === 'new' ? { storage, version: 'v2.0' } : undefined;
}

/** What a person must know before the cutover of a VM that gets a new TPM. */
export function tpmWarnings(vm: Pick<VmRecord, 'name' | 'tpm'>, tpm: TpmStateSpec | undefined): string[] {
  if (!vm.tpm || !tpm) return [];
  return [
    `${vm.name} gets a new, empty TPM (tpmstate0, ${tpm.version}): secrets sealed to the VMware vTPM do not move. ` +
      'Have the BitLocker recovery key ready (or suspend BitLocker in the guest before the cutover), and expect to re-enrol ' +
      'whatever else the TPM held (Windows Hello, certificates with TPM-protected keys)',
  ];
}

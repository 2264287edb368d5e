import type { ConversionPlan } from './decision';
import { linkFile, udevRules, type NicPin } from './nic-names';

/**
 * What ferry itself changes in the guest (on the overlays) before virt-v2v runs, so that virt-v2v's
 * initramfs rebuild takes the NIC pins along: the converter's client turns each into libguestfs calls.
 */
export type GuestEdit =
  | { kind: 'write'; path: string; content: string }
  /** Within the ESP, mounted at /boot/efi. */
  | { kind: 'copy-efi'; from: string; to: string }
  /** The packages in `<agentPackages>/<folder>` on the worker that are not installed in the guest yet. */
  | { kind: 'install-packages'; folder: string; format: 'deb' | 'rpm' };

/** Where packages are copied in the guest while they are installed (removed afterwards). */
export const GUEST_PACKAGE_DIR = '/var/tmp/ferry-packages';

export function guestEdits(plan: ConversionPlan, packageFormat: string): GuestEdit[] {
  if (!plan.convert) return [];
  const edits: GuestEdit[] = [];
  const pins: NicPin[] = [];
  for (const step of plan.steps) {
    if (step.kind === 'pin-nic') pins.push(step.pin);
    if (step.kind === 'uefi-fallback') edits.push(...step.copies.map((c) => ({ kind: 'copy-efi' as const, ...c })));
    if (step.kind === 'install-agent') {
      if (packageFormat !== 'deb' && packageFormat !== 'rpm')
        throw new Error(`cannot install packages of format ${packageFormat || 'unknown'} into the guest`);
      edits.push({ kind: 'install-packages', folder: step.folder, format: packageFormat });
    }
  }
  if (pins.length > 0)
    edits.unshift(...pins.map((p) => ({ kind: 'write' as const, ...linkFile(p) })), {
      kind: 'write',
      ...udevRules(pins),
    });
  return edits;
}

/**
 * The shell script, run in the guest, that installs the copied packages the guest lacks (an installed
 * one is left as it is), offline: dpkg or rpm, never apt or dnf.
 */
export function installPackagesScript(folder: string, format: 'deb' | 'rpm'): string {
  const dir = `${GUEST_PACKAGE_DIR}/${folder}`;
  const check =
    format === 'deb'
      ? `for f in *.deb; do p="$(dpkg-deb -f "$f" Package)"; dpkg-query -W -f='\${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || todo="$todo $f"; done; [ -z "$todo" ] || dpkg -i $todo`
      : `for f in *.rpm; do rpm -q "$(rpm -qp --qf '%{NAME}' "$f")" >/dev/null 2>&1 || todo="$todo $f"; done; [ -z "$todo" ] || rpm -U $todo`;
  return `set -e; cd '${dir}'; todo=""; ${check}; echo "installed:$todo"`;
}

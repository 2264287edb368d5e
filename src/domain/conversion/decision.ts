import type { GuestFamily } from './guest-family';
import { agentPackageFolder, describeOs, vmwareToolsRemoved, type GuestInspection } from './inspection';
import { configuredNics, describePin, nicPins, type NicPin } from './nic-names';
import { conversionModeFor, type ConversionMode, type ConversionSettings } from './settings';
import { uefiFallbackCopies, type EfiCopy } from './uefi-fallback';

/** What ferry knows about a VM from vCenter before reading its disks. */
export interface ConversionFacts {
  vmName: string;
  family: GuestFamily;
  firmware: 'bios' | 'efi';
  nics: ReadonlyArray<{ slot: string; mac: string }>;
  disks: ReadonlyArray<{ slot: string }>;
}

/** One thing conversion does to the guest (on the overlays; VMware's files are only read). */
export type ConversionStep =
  | { kind: 'overlay'; slots: string[] }
  | { kind: 'pin-nic'; pin: NicPin }
  /** qemu-guest-agent from `<agentPackages>/<folder>`, installed offline before virt-v2v runs. */
  | { kind: 'install-agent'; folder: string }
  | { kind: 'uefi-fallback'; copies: EfiCopy[] }
  /** virt-v2v-in-place: drivers, boot loader configuration, and the VMware Tools packages it uninstalls. */
  | { kind: 'virt-v2v'; drivers: string; removes: string[] };

export type NoConversionCode = 'off' | 'other-os' | 'windows-not-in-mode' | 'no-virtio-win' | 'no-os' | 'no-bootloader';

export type ConversionPlan =
  | { convert: false; code: NoConversionCode; reason: string }
  | {
      convert: true;
      family: 'linux' | 'windows';
      /** Read from the disks; absent until they were inspected. */
      os?: string;
      inspected: boolean;
      steps: ConversionStep[];
      notes: string[];
      /** What will not come out right, for a person to act on before approving. */
      warnings: string[];
    };

const LINUX_DRIVERS =
  'virtio_blk, virtio_scsi and virtio_net into the initramfs (rebuilt), GRUB configuration regenerated';

type NoConversion = Extract<ConversionPlan, { convert: false }>;

/**
 * Whether and how a VM's guest is converted at cutover. Without an inspection it is what vCenter's
 * facts allow (the plan says the rest follows from the disks); with one, what the disks hold decides:
 * nothing to convert on blank disks, no conversion without a boot loader virt-v2v knows.
 */
export function conversionPlan(
  facts: ConversionFacts,
  settings: ConversionSettings | undefined,
  inspection?: GuestInspection,
): ConversionPlan {
  const mode = settings ? conversionModeFor(facts.vmName, settings) : 'off';
  if (!settings || mode === 'off')
    return { convert: false, code: 'off', reason: 'migration.conversion is off for this VM: the guest boots as it is' };
  const family = inspection?.os ? inspectedFamily(inspection.os.type) : facts.family;
  const refused = whyNotConverted(family, mode, settings, inspection);
  if (refused) return refused;
  const overlay: ConversionStep = { kind: 'overlay', slots: facts.disks.map((d) => d.slot) };
  const osName = inspection?.os ? describeOs(inspection.os) : undefined;
  if (family === 'windows') return windowsPlan(settings, inspection, overlay, osName);
  if (!inspection) return uninspectedLinuxPlan(overlay);
  return linuxPlan(facts, settings, inspection, overlay, osName!);
}

/**
 * Why a guest under a conversion mode is not converted: no OS on the inspected disks, neither Linux
 * nor Windows, or a Windows guest outside mode `all` or without VirtIO drivers. Undefined: converted.
 */
function whyNotConverted(
  family: GuestFamily,
  mode: ConversionMode,
  settings: ConversionSettings,
  inspection: GuestInspection | undefined,
): NoConversion | undefined {
  if (inspection && !inspection.os) {
    return {
      convert: false,
      code: 'no-os',
      reason: 'no operating system found on its disks (blank, or not one libguestfs knows): nothing to convert',
    };
  }
  if (family === 'other') {
    return {
      convert: false,
      code: 'other-os',
      reason: 'neither Linux nor Windows: virt-v2v converts only those; the guest boots as it is',
    };
  }
  if (family !== 'windows') return undefined;
  if (mode !== 'all')
    return {
      convert: false,
      code: 'windows-not-in-mode',
      reason: 'a Windows guest, converted only with migration.conversion mode all',
    };
  if (!settings.virtioWin) {
    return {
      convert: false,
      code: 'no-virtio-win',
      reason:
        'a Windows guest needs VirtIO drivers to convert: set migration.conversion.virtioWin (the virtio-win ISO or folder)',
    };
  }
  return undefined;
}

function windowsPlan(
  settings: ConversionSettings,
  inspection: GuestInspection | undefined,
  overlay: ConversionStep,
  osName: string | undefined,
): ConversionPlan {
  return {
    convert: true,
    family: 'windows',
    ...(osName ? { os: osName } : {}),
    inspected: inspection !== undefined,
    steps: [
      overlay,
      {
        kind: 'virt-v2v',
        drivers: `VirtIO drivers (viostor, vioscsi, netkvm) from ${settings.virtioWin}`,
        removes: ['VMware Tools'],
      },
    ],
    notes: [],
    warnings: [],
  };
}

/** A Linux guest before its disks were read: what follows from them is said to follow. */
function uninspectedLinuxPlan(overlay: ConversionStep): ConversionPlan {
  return {
    convert: true,
    family: 'linux',
    inspected: false,
    steps: [overlay, { kind: 'virt-v2v', drivers: LINUX_DRIVERS, removes: [] }],
    notes: [
      'NIC name pins, the guest agent, VMware Tools and the boot loader are read from the disks once they are on the migration datastore',
    ],
    warnings: [],
  };
}

function linuxPlan(
  facts: ConversionFacts,
  settings: ConversionSettings,
  inspection: GuestInspection,
  overlay: ConversionStep,
  os: string,
): ConversionPlan {
  if (inspection.bootloaderConfigs.length === 0) {
    const where = facts.firmware === 'efi' ? '/boot/efi/EFI/*/grub.cfg' : '/boot/grub*/grub.cfg';
    return {
      convert: false,
      code: 'no-bootloader',
      reason: `${os}: no GRUB configuration (${where}); virt-v2v 2.2 converts only guests that boot with GRUB: the guest boots as it is`,
    };
  }
  const steps: ConversionStep[] = [overlay];
  const notes: string[] = [];
  const warnings: string[] = [];
  const { pins, notes: pinNotes } = nicPins(
    facts.nics,
    configuredNics(inspection.networkFiles),
    inspection.kernelCmdline,
  );
  steps.push(...pins.map((pin): ConversionStep => ({ kind: 'pin-nic', pin })));
  notes.push(...pinNotes);
  if (!inspection.packages.includes('qemu-guest-agent')) {
    const folder = agentPackageFolder(inspection.os!);
    if (settings.agentPackages && inspection.agentFolders?.includes(folder))
      steps.push({ kind: 'install-agent', folder });
    else {
      warnings.push(
        `the guest has no qemu-guest-agent and ${settings.agentPackages ? `${settings.agentPackages} has no ${folder} folder` : 'migration.conversion.agentPackages is not set'}: virt-v2v only queues an install from the network at first boot, and verify-guest, which asks the agent, will fail without it`,
      );
    }
  }
  if (facts.firmware === 'efi') {
    const fallback = uefiFallbackCopies(inspection.efiFiles);
    if (fallback.copies.length > 0) steps.push({ kind: 'uefi-fallback', copies: fallback.copies });
    if (fallback.note) (fallback.copies.length > 0 ? notes : warnings).push(fallback.note);
  }
  steps.push({ kind: 'virt-v2v', drivers: LINUX_DRIVERS, removes: vmwareToolsRemoved(inspection.packages) });
  return { convert: true, family: 'linux', os, inspected: true, steps, notes, warnings };
}

function inspectedFamily(type: string): GuestFamily {
  return type === 'linux' ? 'linux' : type === 'windows' ? 'windows' : 'other';
}

/** One line per step, as plan, status and the cutover plan show them. */
export function describeConversionStep(step: ConversionStep): string {
  switch (step.kind) {
    case 'overlay':
      return `qcow2 overlay over the VMware disk of ${step.slots.join(', ')} (VMware's files are only read)`;
    case 'pin-nic':
      return `NIC ${describePin(step.pin)}`;
    case 'install-agent':
      return `install qemu-guest-agent from agentPackages/${step.folder} (offline)`;
    case 'uefi-fallback':
      return `UEFI fallback path: ${step.copies.map((c) => `${c.from} → ${c.to}`).join(', ')}`;
    case 'virt-v2v':
      return `virt-v2v-in-place: ${step.drivers}${step.removes.length ? `; removes ${step.removes.join(', ')}` : ''}`;
  }
}

/** The plan in a few lines: what will run, or why nothing will. */
export function describeConversion(plan: ConversionPlan): string[] {
  if (!plan.convert) return [`not converted: ${plan.reason}`];
  const head = `converted (${plan.family}${plan.os ? `: ${plan.os}` : ''}${plan.inspected ? '' : ', not inspected yet'})`;
  return [
    head,
    ...plan.steps.map((s) => `  - ${describeConversionStep(s)}`),
    ...plan.notes.map((n) => `  note: ${n}`),
    ...plan.warnings.map((w) => `  warning: ${w}`),
  ];
}

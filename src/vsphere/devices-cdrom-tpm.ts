import type { CdromBacking, VmCdrom, VmTpm } from '../domain/inventory';
import { Fields } from './read';
import { children, type XmlElement } from './xml';

/**
 * CD/DVD drives (VirtualCdrom) and the virtual TPM (VirtualTPM) of `config.hardware.device`. Kept apart
 * from disks and NICs: a VM record carries them only when the VM has them.
 */
export function cdromsAndTpmOf(deviceList: XmlElement | undefined, at: string): { cdroms?: VmCdrom[]; tpm?: VmTpm } {
  const devices = (deviceList ? children(deviceList, 'VirtualDevice') : []).map((e, i) => new Fields(e, `${at}[${i}]`));
  const controllers = new Map<number, { type: string; bus: number }>();
  for (const d of devices) {
    const type = d.element.xsiType;
    if (type && d.has('busNumber'))
      controllers.set(d.requiredInt('key'), { type: controllerType(type), bus: d.requiredInt('busNumber') });
  }
  const cdroms: VmCdrom[] = [];
  let tpm: VmTpm | undefined;
  for (const d of devices) {
    const type = d.element.xsiType;
    if (type === 'VirtualCdrom') cdroms.push(cdromRecord(d, controllers));
    else if (type === 'VirtualTPM') {
      const key = d.requiredInt('key');
      tpm ??= { key, label: d.object('deviceInfo')?.string('label') ?? `TPM ${key}` };
    }
  }
  return { ...(cdroms.length > 0 ? { cdroms } : {}), ...(tpm ? { tpm } : {}) };
}

/** `VirtualIDEController` → `ide`, `VirtualAHCIController` → `ahci` (the buses a CD drive sits on). */
function controllerType(xsiType: string): string {
  return xsiType
    .replace(/^Virtual/, '')
    .replace(/Controller$/, '')
    .toLowerCase();
}

function cdromRecord(d: Fields, controllers: ReadonlyMap<number, { type: string; bus: number }>): VmCdrom {
  const key = d.requiredInt('key');
  const controller = controllers.get(d.int('controllerKey') ?? -1);
  return {
    key,
    label: d.object('deviceInfo')?.string('label') ?? `CD/DVD drive ${key}`,
    controllerType: controller?.type ?? 'unknown',
    controllerBusNumber: controller?.bus ?? 0,
    unitNumber: d.int('unitNumber') ?? 0,
    startConnected: d.object('connectable')?.bool('startConnected') ?? true,
    backing: cdromBacking(d.object('backing')),
  };
}

function cdromBacking(backing: Fields | undefined): CdromBacking {
  if (!backing) return { kind: 'none' };
  const type = backing.type();
  switch (type) {
    case 'VirtualCdromIsoBackingInfo': {
      const fileName = backing.string('fileName')?.trim() ?? '';
      return fileName ? { kind: 'iso', fileName } : { kind: 'none' };
    }
    case 'VirtualCdromAtapiBackingInfo':
    case 'VirtualCdromPassthroughBackingInfo': {
      const deviceName = backing.string('deviceName');
      return { kind: 'host-device', ...(deviceName ? { deviceName } : {}) };
    }
    case 'VirtualCdromRemoteAtapiBackingInfo':
    case 'VirtualCdromRemotePassthroughBackingInfo':
      return { kind: 'client-device' };
    default:
      return { kind: 'other', backingType: type };
  }
}

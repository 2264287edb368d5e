import type { DiskBusPolicy } from '../migration/disks';
import type { NicModelPolicy } from '../migration/nics';
import type { GuestFamily } from './guest-family';
import { conversionModeFor, type ConversionSettings } from './settings';

/**
 * The disk bus and NIC model a guest can boot with on Proxmox. Windows has no inbox driver for VirtIO
 * SCSI or virtio-net: unless virt-v2v injects VirtIO drivers (conversion `all` with `virtioWin`), its
 * disks go on SATA and its NICs on e1000e, which it has drivers for, and the plan says so. Everything
 * else keeps the configured policies (a converted Linux guest gets virtio drivers in its initramfs).
 */
export function guestDevices(
  vmName: string,
  family: GuestFamily,
  conversion: ConversionSettings | undefined,
  policies: { diskBus: DiskBusPolicy; nicModel: NicModelPolicy },
): { diskBus: DiskBusPolicy; nicModel: NicModelPolicy; note?: string } {
  if (family !== 'windows' || conversion === undefined) return policies;
  const drivers = conversionModeFor(vmName, conversion) === 'all' && conversion.virtioWin !== undefined;
  if (drivers) return policies;
  const diskBus: DiskBusPolicy = 'sata';
  const nicModel: NicModelPolicy = policies.nicModel === 'virtio' ? 'e1000e' : policies.nicModel;
  const nics = nicModel !== policies.nicModel ? ' and its NICs on e1000e' : '';
  return {
    diskBus,
    nicModel,
    note: `a Windows guest without VirtIO drivers (migration.conversion all with virtioWin would inject them): its disks go on SATA${nics}, which Windows has drivers for`,
  };
}

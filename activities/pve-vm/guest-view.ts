import type { GuestView } from '../../src/domain/change';
import { attachedDisks, type ProxmoxClient } from '../../src/proxmox';
import { ProxmoxAgentNotConfiguredError, ProxmoxAgentNotRunningError } from '../../src/proxmox/errors';

/**
 * One shell line for the guest agent: each SCSI disk's address (host:channel:target:lun) and size in
 * 512-byte sectors, then the memory the guest has (MemTotal, kB). No tool beyond a POSIX shell.
 */
const LIST_DISKS_AND_MEMORY =
  'for d in /sys/block/sd*; do [ -e "$d/device" ] && echo "disk $(basename "$(readlink -f "$d/device")") $(cat "$d/size")"; done; ' +
  'grep MemTotal /proc/meminfo';

/**
 * What the guest itself sees after a change: its memory online, each SCSI disk's size by Proxmox slot
 * (matched by its SCSI address as qemu-server plugs it: virtio-scsi puts scsiN at LUN N, lsi and pvscsi
 * at target N), and its interfaces. Undefined when the VM has no agent or it does not answer: then only
 * Proxmox's config is judged, and the status says so.
 */
export async function readGuestView(pve: ProxmoxClient, node: string, vmid: number): Promise<GuestView | undefined> {
  try {
    const [listed, interfaces, config] = await Promise.all([
      pve.agent.exec(node, vmid, ['sh', '-c', LIST_DISKS_AND_MEMORY]),
      pve.agent.networkInterfaces(node, vmid),
      pve.config.get(node, vmid, { current: true }),
    ]);
    return {
      ...memoryOf(listed.stdout),
      diskBytes: diskBytesBySlot(listed.stdout, config.values),
      interfaces: interfaces.flatMap((i) =>
        i.mac ? [{ mac: i.mac, addresses: i.addresses.map((a) => `${a.address}/${a.prefix}`) }] : [],
      ),
    };
  } catch (err) {
    if (err instanceof ProxmoxAgentNotRunningError || err instanceof ProxmoxAgentNotConfiguredError) return undefined;
    throw err;
  }
}

function memoryOf(out: string): Pick<GuestView, 'memoryMiB'> {
  const kb = /^MemTotal:\s+(\d+)\s+kB/m.exec(out)?.[1];
  return kb ? { memoryMiB: Math.round(Number(kb) / 1024) } : {};
}

/** `disk H:C:T:L sectors` lines, mapped to the VM's scsiN slots. */
export function diskBytesBySlot(out: string, config: Readonly<Record<string, string>>): Record<string, number> {
  const byTarget = !config.scsihw || config.scsihw.startsWith('lsi') || config.scsihw === 'pvscsi';
  const seen = [...out.matchAll(/^disk (\d+):(\d+):(\d+):(\d+) (\d+)$/gm)].map((m) => ({
    target: Number(m[3]),
    lun: Number(m[4]),
    bytes: Number(m[5]) * 512,
  }));
  const sizes: Record<string, number> = {};
  for (const slot of Object.keys(attachedDisks(config)).filter((k) => k.startsWith('scsi'))) {
    const index = Number(slot.slice(4));
    const disk = seen.find((d) => (byTarget ? d.target === index : d.lun === index));
    if (disk) sizes[slot] = disk.bytes;
  }
  return sizes;
}

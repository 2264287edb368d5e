import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { escapeXml } from '../../src/vsphere/envelope';

/**
 * What vcsim (v0.46.3) cannot create but vCenter reports, written into the saved estate (the
 * ObjectContent files of `govc object.save`) before it is loaded:
 *
 * - Uplink portgroups: vCenter lists them in the switch's `config.uplinkPortgroup` and sets the
 *   portgroup's `config.uplink`; vcsim sets neither.
 * - Raw device mappings: vcsim panics on any disk whose backing is not VirtualDiskFlatVer2BackingInfo
 *   while creating or reconfiguring a VM, so the disk is created flat and its backing rewritten to
 *   VirtualDiskRawDiskMappingVer1BackingInfo (physical mode, independent). vcsim serves it as saved, but
 *   reconfiguring or relocating that VM would crash vcsim: the lab only ever reads it (ferry refuses RDMs).
 * - vcsim shares its default PCI controller's `device` list between the VMs it creates, so each VM's
 *   controller lists the NIC keys of every VM created before it (2,000 VMs: 95 MB of device keys). Each
 *   list is cut back to the VM's own devices, as vCenter reports it.
 */
export interface VcsimGaps {
  uplinkPortgroupKeys: string[];
  rdms: Array<{ fileName: string; lun: string }>;
}

export function fillVcsimGaps(objectsDir: string, gaps: VcsimGaps): void {
  if (gaps.uplinkPortgroupKeys.length === 0) throw new Error('estate builder: the switch has no uplink portgroup');
  const pending = new Set([
    ...gaps.uplinkPortgroupKeys.map((k) => `uplink ${k}`),
    ...gaps.rdms.map((r) => `rdm ${r.fileName}`),
  ]);
  for (const file of readdirSync(objectsDir)) {
    if (!file.endsWith('.xml')) continue;
    const full = path.join(objectsDir, file);
    const before = readFileSync(full, 'utf8');
    let text = before;
    for (const key of gaps.uplinkPortgroupKeys) {
      if (file.endsWith(`-DistributedVirtualPortgroup-${key}.xml`)) {
        text = text.replace(`<key>${key}</key>`, `<key>${key}</key><uplink>true</uplink>`);
        pending.delete(`uplink ${key}`);
      }
      if (file.includes('-DistributedVirtualSwitch-') && text.includes(`>${key}</ManagedObjectReference>`)) {
        text = text.replace(
          '</uplinkPortPolicy>',
          `</uplinkPortPolicy><uplinkPortgroup type="DistributedVirtualPortgroup">${key}</uplinkPortgroup>`,
        );
      }
    }
    if (file.includes('-VirtualMachine-')) {
      text = ownPciDevices(text);
      for (const rdm of gaps.rdms) {
        const flat = new RegExp(
          `<backing ([\\w.-]+):type="VirtualDiskFlatVer2BackingInfo">\\s*<fileName>${escapeRegExp(escapeXml(rdm.fileName))}</fileName>\\s*(<datastore [^>]*>[^<]*</datastore>)[\\s\\S]*?</backing>`,
        );
        text = text.replace(flat, (_all, xsi: string, datastore: string) => {
          pending.delete(`rdm ${rdm.fileName}`);
          return (
            `<backing ${xsi}:type="VirtualDiskRawDiskMappingVer1BackingInfo"><fileName>${escapeXml(rdm.fileName)}</fileName>${datastore}` +
            `<deviceName>${escapeXml(rdm.lun)}</deviceName><compatibilityMode>physicalMode</compatibilityMode>` +
            `<diskMode>independent_persistent</diskMode></backing>`
          );
        });
      }
    }
    if (text !== before) writeFileSync(full, text);
  }
  if (pending.size > 0)
    throw new Error(`estate builder: could not write ${[...pending].join(', ')} into the saved estate`);
}

/** Keeps, in each VirtualPCIController's `device` list, each key of a device the VM has, once. */
function ownPciDevices(text: string): string {
  const keys = new Set([...text.matchAll(/<key>(-?\d+)<\/key>/g)].map((m) => m[1]!));
  return text.replace(
    /(<device [\w.-]+:type="VirtualPCIController">[\s\S]*?<busNumber>\d+<\/busNumber>)((?:\s*<device>-?\d+<\/device>)*)/g,
    (_all, head: string, list: string) => {
      const own = [...new Set([...list.matchAll(/<device>(-?\d+)<\/device>/g)].map((m) => m[1]!))].filter((k) =>
        keys.has(k),
      );
      return head + own.map((k) => `<device>${k}</device>`).join('');
    },
  );
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

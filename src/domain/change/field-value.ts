import type { PlannedChange } from './change';
import { canonicalDiskOption } from './disk-options';
import { nicFieldsOfView, type FieldValue, type NicField } from './fields';
import { vcpusOf, type VmConfigView } from './vm-config';

/** A change's field as a config view has it, in the canonical text the plan compared (for reading back). */
export function fieldValue(view: VmConfigView, change: Pick<PlannedChange, 'id' | 'kind' | 'slot'>): FieldValue {
  const slot = change.slot ?? '';
  const name = change.id.slice(slot.length + 1);
  switch (change.kind) {
    case 'vcpus':
      return String(vcpusOf(view));
    case 'memory':
      return String(view.memoryMiB);
    case 'disk':
      return view.disks.has(slot) ? 'present' : undefined;
    case 'disk.size':
      return view.disks.get(slot)?.sizeBytes?.toString();
    case 'disk.storage':
      return view.disks.get(slot)?.storage;
    case 'disk.option':
      return canonicalDiskOption(name, view.disks.get(slot)?.options[name]);
    case 'nic':
      return view.nics.has(slot) ? 'present' : undefined;
    default: {
      const nic = view.nics.get(slot);
      return nic ? nicFieldsOfView(nic)[name as NicField] : undefined;
    }
  }
}

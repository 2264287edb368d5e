import { execFile } from 'node:child_process';
import {
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
  ftruncateSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { parseDatastorePath } from '../../src/domain/migration/disks';
import { guestImage, type GuestImage, type GuestVariant } from '../guest-image/paths';
import { readVmConfig, renderVmConf, writeVmConfig, type GuestVmConfig } from '../guest-image/per-vm-config';
import { descriptorNaming } from '../guest-image/vmdk-descriptor';
import { vmwareGuestImage, type VmwareFirmware, type VmwareGuestImage } from '../vmware-guest/paths';
import {
  readVmwareGuestInterfaces,
  renderInterfaces,
  writeVmwareGuestConfig,
  type VmwareGuestConfig,
} from '../vmware-guest/per-vm-config';
import { guestDiskBytes, type ManifestDisk } from './build-estate';
import { vmwareFirmwareOf } from './estate';

const run = promisify(execFile);

/** Bytes at the start of every lab disk that say which disk it is (so an import can be checked). */
export const PATTERN_BYTES = 64 * 1024;

/** The recognisable content of a lab disk: its vSphere file name, repeated. */
export function diskPattern(fileName: string): Buffer {
  const line = Buffer.from(`ferry lab disk ${fileName}\n`);
  const out = Buffer.alloc(PATTERN_BYTES);
  for (let at = 0; at < PATTERN_BYTES; at += line.length) line.copy(out, at);
  return out;
}

/**
 * VMDK descriptors as `qemu-img create -f vmdk -o subformat=monolithicFlat` writes them, one per
 * capacity, with the extent file name left to fill in: vSphere's own layout on NFS (`x.vmdk` descriptor
 * + `x-flat.vmdk` raw extent).
 */
class DescriptorTemplates {
  private readonly byCapacity = new Map<number, { text: string; extent: string }>();
  private readonly dir = mkdtempSync(path.join(tmpdir(), 'ferry-vmdk-'));

  async for(capacityBytes: number): Promise<{ text: string; extent: string }> {
    let t = this.byCapacity.get(capacityBytes);
    if (!t) {
      const file = path.join(this.dir, `t${capacityBytes}.vmdk`);
      await run('qemu-img', [
        'create',
        '-q',
        '-f',
        'vmdk',
        '-o',
        'subformat=monolithicFlat,adapter_type=lsilogic',
        file,
        String(capacityBytes),
      ]);
      t = { text: readFileSync(file, 'utf8'), extent: `t${capacityBytes}-flat.vmdk` };
      this.byCapacity.set(capacityBytes, t);
    }
    return t;
  }

  dispose(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * A VM's copy of the lab guest disk, as vSphere keeps it: the image's monolithicFlat descriptor (its
 * extent renamed to `flatName`) and a sparse copy of its flat extent with the VM's settings written
 * onto the ESP. Left alone when already there with these settings.
 */
async function placeGuestDisk(
  disk: ManifestDisk & { guest: NonNullable<ManifestDisk['guest']> },
  descriptor: string,
  flat: string,
): Promise<boolean> {
  const { variant, config } = disk.guest;
  const firmware = vmwareFirmwareOf(variant);
  const writer = firmware ? vmwareGuestWriter(firmware, config) : labGuestWriter(variant as GuestVariant, config);
  if (disk.capacityBytes !== guestDiskBytes(variant)) {
    throw new Error(
      `lab disk ${disk.fileName}: the estate says ${disk.capacityBytes} bytes, the ${variant} guest disk is ${guestDiskBytes(variant)}`,
    );
  }
  try {
    if (statSync(flat).size === disk.capacityBytes && statSync(descriptor).size > 0 && (await writer.written(flat)))
      return false;
  } catch {
    // not there yet
  }
  const text = descriptorNaming(readFileSync(writer.vmdk, 'utf8'), writer.flat, flat);
  mkdirSync(path.dirname(descriptor), { recursive: true });
  writeFileSync(descriptor, text);
  await run('cp', ['--sparse=always', writer.flat, flat]);
  await writer.write(flat);
  return true;
}

/** Where a guest variant's disk comes from, and how its settings are written and recognised on a copy. */
interface GuestDiskWriter {
  vmdk: string;
  flat: string;
  write(flat: string): Promise<void>;
  /** The copy carries these settings already. */
  written(flat: string): Promise<boolean>;
}

let labImage: GuestImage | undefined;
let vmwareImage: VmwareGuestImage | undefined;

function labGuestWriter(variant: GuestVariant, config: GuestVmConfig): GuestDiskWriter {
  const image = (labImage ??= guestImage());
  return {
    vmdk: image.vmdk(variant),
    flat: image.flat(variant),
    write: (flat) => writeVmConfig(flat, config, image),
    written: async (flat) => (await readVmConfig(flat, image)) === renderVmConf(config),
  };
}

function vmwareGuestWriter(firmware: VmwareFirmware, config: GuestVmConfig): GuestDiskWriter {
  const image = (vmwareImage ??= vmwareGuestImage());
  const settings: VmwareGuestConfig = {
    hostname: config.hostname ?? 'vmware-guest',
    nics: config.nics.map(({ address, gateway }) => ({ address, ...(gateway ? { gateway } : {}) })),
  };
  return {
    vmdk: image.vmdk(firmware),
    flat: image.flat(firmware),
    write: (flat) => writeVmwareGuestConfig(flat, firmware, settings, image),
    written: async (flat) =>
      (await readVmwareGuestInterfaces(flat, firmware, image)) === renderInterfaces(settings, image.manifest.nicNames),
  };
}

/**
 * Places a real VMDK where each disk's backing file name points: descriptor + sparse flat extent
 * starting with the disk's pattern, or, for a guest disk, the VM's own copy of the lab guest. Disks
 * already in place with the right size (and settings) are left alone.
 */
export async function placeDisks(
  disks: readonly ManifestDisk[],
  datastoreDir: (datastore: string) => string | undefined,
): Promise<number> {
  const templates = new DescriptorTemplates();
  let placed = 0;
  try {
    for (const disk of disks) {
      const parsed = parseDatastorePath(disk.fileName);
      const root = parsed && datastoreDir(parsed.datastore);
      if (!parsed || !root) throw new Error(`lab disk ${disk.fileName}: no folder for its datastore`);
      const descriptor = path.join(root, parsed.path);
      const flatName = `${path.basename(descriptor, '.vmdk')}-flat.vmdk`;
      const flat = path.join(path.dirname(descriptor), flatName);
      if (disk.guest) {
        if (await placeGuestDisk({ ...disk, guest: disk.guest }, descriptor, flat)) placed++;
        continue;
      }
      try {
        if (statSync(flat).size === disk.capacityBytes && statSync(descriptor).size > 0) continue;
      } catch {
        // not there yet
      }
      const template = await templates.for(disk.capacityBytes);
      mkdirSync(path.dirname(descriptor), { recursive: true });
      writeFileSync(descriptor, template.text.replace(`"${template.extent}"`, `"${flatName}"`));
      const fd = openSync(flat, 'w');
      try {
        ftruncateSync(fd, disk.capacityBytes);
        writeSync(fd, diskPattern(disk.fileName), 0, PATTERN_BYTES, 0);
      } finally {
        closeSync(fd);
      }
      placed++;
    }
  } finally {
    templates.dispose();
  }
  return placed;
}

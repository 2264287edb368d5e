import { parsePropertyString } from '../../src/proxmox/property-string';
import { fail, paramError } from './api-error';
import { cloneDisk } from './clone-disk';
import { configDigest, type Cluster, type SimVm } from './cluster';
import { guestAgentSettings } from './qemu/command-line';
import { mirrorDrive } from './qemu/drive-mirror';
import { qemuRuntime } from './qemu/runtime';
import type { ImageFormat } from './qemu-img';
import { INJECTED_TASK_FAILURE, startTask, type SimRequest } from './routes/types';
import type { StorageSpec, Volume } from './storage';
import { TaskInterrupted } from './tasks';
import { DISK_KEY, freeUnusedKey } from './vm-config';

/**
 * `POST /nodes/{node}/qemu/{vmid}/move_disk` to another storage, as qemu-server's move_vm_disk does it
 * (API2/Qemu.pm: load_and_check_move before the worker and again under the config lock, then
 * move_updatefn; QemuServer.pm clone_disk): the worker holds the VM's config lock throughout; the target
 * volume is allocated on the target storage in the requested format (else the source's, else the
 * storage's default) and filled
 *
 * - for a running VM under real QEMU, by mirroring the drive live (qemu/drive-mirror.ts): QEMU switches
 *   the drive to the new volume itself, the guest keeps running;
 * - otherwise (stopped, a simulated VM without QEMU, an unusedN disk) by qemu-img convert, which reads
 *   a qcow2 overlay's whole backing chain, so the new volume has no backing file.
 *
 * Then the slot names the new volume (its options kept, `format` dropped, `size` the new volume's), the
 * old one becomes `unusedN`, or with `delete` is freed. Any error — the mirror failing, QEMU gone, the
 * task stopped ("interrupted by signal"), an injected fault — frees the new volume and leaves the config
 * on the source; the task fails "storage migration failed: …". An injected fault hits a live move
 * mid-mirror (after its first progress line), an offline one before its work, as other tasks fail.
 *
 * Moving a disk to another VM (`target-vmid`) is not simulated.
 */
const MODIFIED = 'detected modified configuration - file changed by other user? Try again.';

interface Checked {
  value: string;
  oldVolid: string;
  source: Volume;
  target: StorageSpec;
  snapshotted: boolean;
}

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));
const isCloudInit = (volid: string) => /(^|[:/])vm-\d+-cloudinit(\.\w+)?$/.test(volid);

/** is_volume_in_use with the disk's key given: whether a snapshot's config still uses the volume. */
function usedBySnapshot(vm: SimVm, volid: string): boolean {
  for (const snap of vm.snapshots.values()) {
    for (const [key, value] of Object.entries(snap)) {
      if (DISK_KEY.test(key) && parsePropertyString(value, 'file').file === volid) return true;
    }
  }
  return false;
}

/** load_and_check_move. */
function loadAndCheck(cluster: Cluster, vm: SimVm, params: Record<string, string>): Checked {
  const disk = params.disk!;
  cluster.checkLock(vm);
  if (params.digest !== undefined && params.digest !== configDigest(vm)) throw fail(MODIFIED);
  const value = vm.config[disk];
  if (!value) throw fail(`disk '${disk}' does not exist`);
  const drive = parsePropertyString(value, 'file');
  const oldVolid = drive.file;
  if (!oldVolid) throw fail(`disk '${disk}' has no associated volume`);
  if (drive.media === 'cdrom' && !isCloudInit(oldVolid)) throw fail("you can't move a cdrom");
  // parse_volume_id without noerr: a disk attached by absolute path cannot be moved at all.
  if (!/^[^/:][^:]*:.+$/.test(oldVolid)) throw fail(`unable to parse volume ID '${oldVolid}'`);
  const source = cluster.storages.resolve(oldVolid, vm.node);
  const format = params.format;
  if (source.storage.id === params.storage && (!format || format === source.format))
    throw fail("you can't move to the same storage with same format");
  const target = cluster.storages.require(params.storage!);
  if (!target.content.includes('images'))
    throw paramError({ storage: `storage '${target.id}' does not support vm images` });
  const snapshotted = usedBySnapshot(vm, oldVolid);
  if (snapshotted && params.delete === '1') throw fail("you can't move a disk with snapshots and delete the source");
  return { value, oldVolid, source, target, snapshotted };
}

/** The handler: checks, then the `qmmove` task. Returns its UPID. */
export function moveDisk(req: SimRequest, vm: SimVm): string {
  const { cluster, params } = req;
  if (params['target-vmid'] !== undefined && params.storage !== undefined) {
    const msg = "either set 'storage' or 'target-vmid', but not both";
    throw paramError({ 'target-vmid': msg, storage: msg });
  }
  if (params['target-vmid'] !== undefined) throw fail('moving a disk to another VM is not simulated');
  if (params.storage === undefined) {
    const msg = "both 'storage' and 'target-vmid' missing, either needs to be set";
    throw paramError({ 'target-vmid': msg, storage: msg });
  }
  loadAndCheck(cluster, vm, params); // early checks before forking/locking
  // An injected failure is the worker's own (see above), not one before its work.
  return startTask({ ...req, failTask: false }, { node: vm.node, type: 'qmmove', id: String(vm.vmid) }, (task) =>
    vm.flock.run(cluster.settings.flockTimeoutMs, async () => {
      if (task.signal.aborted) throw new TaskInterrupted(); // stopped while it waited for the lock
      const { value, oldVolid, source, target, snapshotted } = loadAndCheck(cluster, vm, params);
      const disk = params.disk!;
      const unused = !DISK_KEY.test(disk);
      const instance = unused ? undefined : qemuRuntime(cluster)?.get(vm.vmid);
      if (req.failTask && !instance) throw new Error(INJECTED_TASK_FAILURE);
      const pve9 = cluster.flavour !== '8.4';
      if (pve9)
        task.log(
          `copying volume '${oldVolid}' from current storage '${source.storage.id}' to target storage '${target.id}'`,
        );
      const created: Volume[] = [];
      task.countImport(); // a disk copy, for the admin log's import-concurrency figures
      try {
        if (snapshotted) task.log('moving disk with snapshots, snapshots will not be moved!');
        if (instance && disk === 'tpmstate0') throw new Error('cannot move TPM state while VM is running');
        const bwlimit = params.bwlimit === undefined ? undefined : Number(params.bwlimit);
        const mirror = instance
          ? (volume: Volume, format: ImageFormat) =>
              mirrorDrive({
                cluster,
                vm,
                key: disk,
                target: { path: volume.file, format },
                bwlimit,
                task,
                interruptedMessage: 'interrupted by signal',
                fault: req.failTask ? INJECTED_TASK_FAILURE : undefined,
              })
          : undefined;
        const moved = await cloneDisk(
          cluster,
          // An unusedN volume is not attached: copied as is, without pausing a running guest.
          { vm, key: disk, value, volume: source, running: vm.status === 'running' && !unused },
          { vmid: vm.vmid, node: vm.node, storage: target, format: params.format as ImageFormat | undefined },
          true,
          task,
          created,
          mirror,
        );
        if (task.signal.aborted) throw new TaskInterrupted('interrupted by signal'); // a stop during qemu-img convert
        // print_drive of the new drive; an unusedN entry is the bare volume (clone_disk sets no size for it).
        vm.config[disk] = unused ? created[0]!.volid : moved;
        if (params.delete !== '1') {
          const key = freeUnusedKey(vm);
          vm.config[key] = oldVolid;
          if (pve9) task.log(`adding source volume '${oldVolid}' as '${key}' to config`);
        }
        if (instance && agentKey(vm.config.agent, 'fstrim_cloned_disks')) {
          const runtime = qemuRuntime(cluster)!;
          if ((await runtime.agentRunning(vm.vmid)).ok)
            await runtime.agentCommand(vm.vmid, 'guest-fstrim').catch(() => undefined);
        }
      } catch (err) {
        for (const volume of created) {
          try {
            cluster.storages.remove(volume);
          } catch (removeErr) {
            task.log(messageOf(removeErr));
          }
        }
        const why = err instanceof TaskInterrupted ? 'interrupted by signal' : messageOf(err);
        throw new Error(`storage migration failed: ${why}`);
      }
      if (params.delete === '1') {
        if (pve9) task.log(`removing source volume '${oldVolid}' after successful copy`);
        try {
          cluster.storages.remove(source);
        } catch (err) {
          task.log(messageOf(err));
        }
      }
    }),
  ).upid;
}

/** get_qga_key: one key of the `agent` property string. */
function agentKey(agent: string | undefined, key: string): boolean {
  if (!guestAgentSettings(agent)) return false;
  const value = parsePropertyString(agent!, 'enabled')[key];
  return value === '1' || value === 'on' || value === 'yes' || value === 'true';
}

import { isIP } from 'node:net';
import { z } from 'zod';
import { ALWAYS, duration } from './common';
import { approvalMode, approverEntry, approversNeedKeys } from './approvers';
import { haKeys } from './ha';
import { placementKeys } from './placement';
import { conversionSection } from './conversion';

const sdnId = z
  .string()
  .regex(/^[a-zA-Z][a-zA-Z0-9]{0,6}[a-zA-Z0-9]$/, '2–8 letters and digits, starting with a letter');

/** A guest address in `migration.verify.expect`: IPv4 or IPv6, optionally with a prefix length. */
const guestAddress = z.string().refine((a) => isIP(a.split('/')[0]!) !== 0, {
  message: 'an IPv4 or IPv6 address (optionally /prefix), e.g. 198.51.100.21',
});

const verifySection = z
  .object({
    /** false: ferry starts VMs but claims nothing about their guests (reported "not verified"). */
    enabled: z.boolean().default(true),
    /** How long the guest agent may take to answer after the VM started. */
    agentTimeout: duration.default('5m'),
    /** How long, after its agent answered, the guest's network may take to show the VMware MACs and address. */
    networkTimeout: duration.default('1m'),
    /** How long each probe may keep failing before verification fails. */
    probeTimeout: duration.default('2m'),
    /** How often the agent and the probes are asked again. */
    pollInterval: duration.default('5s'),
    /** Checks after the agent answered: `{ tcp: 22 }` connects to that port of the guest's address. */
    probes: z
      .array(z.object({ tcp: z.number().int().min(1, 'a TCP port 1–65535').max(65535, 'a TCP port 1–65535') }).strict())
      .default([]),
    /** `decide`: a failed check waits for retry or rollback. `rollback`: ferry rolls back by itself. */
    onFailure: z
      .enum(['decide', 'rollback'], {
        message: "'decide' (wait for a person) or 'rollback' (ferry rolls back by itself)",
      })
      .default('decide'),
    /** The address each VM (by its VMware name) must carry on one of its VMware NICs; wins over discovery. */
    expect: z.record(z.string().min(1), guestAddress).default({}),
    /** VMware names (globs) of VMs whose guests are not checked (appliances without an agent): reported "not verified". */
    skip: z.array(z.string().min(1, 'a VM name or glob')).default([]),
  })
  .strict()
  .default({
    enabled: true,
    agentTimeout: '5m',
    networkTimeout: '1m',
    probeTimeout: '2m',
    pollInterval: '5s',
    probes: [],
    onFailure: 'decide',
    expect: {},
    skip: [],
  });

/** How VMware VMs become Proxmox VMs (see src/domain/migration). */
export const migrationSection = z
  .object({
    /** VMID = vmidBase + numeric part of the vCenter moid (vm-42 → vmidBase + 42). */
    vmidBase: z.number().int().min(0).max(999_999_899),
    /** Proxmox node the shells are created on. */
    node: z.string().min(1),
    /** Storage the imported disks land on. */
    targetStorage: z.string().min(1),
    /** Storage for EFI vars disks (default: targetStorage). */
    efiStorage: z.string().min(1).optional(),
    /** The vSphere datastore storage vMotion moves disks to: an NFS export the Proxmox nodes mount too. */
    migrationDatastore: z.string().min(1),
    /** vSphere datastores the Proxmox nodes mount, and where. */
    datastores: z
      .array(
        z
          .object({
            datastore: z.string().min(1),
            storage: z.string().min(1),
            path: z.string().regex(/^\//, 'an absolute path on the Proxmox nodes'),
            /** Where ferry-convert workers mount the same storage root (default: `path`). */
            convertPath: z.string().regex(/^\//, 'an absolute path on the convert workers').optional(),
            layout: z.enum(['storage-root', 'import-dir']).default('storage-root'),
          })
          .strict(),
      )
      .min(1),
    network: z
      .object({
        zone: sdnId.default('ferry'),
        bridge: z.string().min(1).default('vmbr0'),
        vnetPrefix: z
          .string()
          .regex(/^[a-zA-Z][a-zA-Z0-9]{0,3}$/, '1–4 letters and digits, starting with a letter')
          .default('v'),
        overrides: z
          .array(
            z
              .object({ network: z.string().min(1), vnet: sdnId, tag: z.number().int().min(1).max(4094).optional() })
              .strict(),
          )
          .default([]),
      })
      .strict()
      .default({ zone: 'ferry', bridge: 'vmbr0', vnetPrefix: 'v', overrides: [] }),
    nicModel: z.enum(['virtio', 'e1000', 'e1000e', 'vmxnet3', 'rtl8139', 'keep']).default('virtio'),
    diskBus: z.enum(['scsi', 'keep']).default('scsi'),
    /**
     * CD drives: VMware ISO path → Proxmox ISO volume, exact paths (`'[iso-ds] win/server2022.iso':
     * 'local:iso/server2022.iso'`). A drive whose ISO is not here becomes an empty CD drive.
     */
    isoMap: z
      .record(
        z.string(),
        z
          .string()
          .regex(/^[a-z][a-z0-9\-_.]*[a-z0-9]:iso\/[^/]+\.(iso|img)$/i, 'a Proxmox ISO volume: storage:iso/file.iso'),
      )
      .superRefine((map, ctx) => {
        for (const key of Object.keys(map)) {
          if (!/^\[[^\]]+\]\s*\S/.test(key))
            ctx.addIssue({
              code: 'custom',
              path: [key],
              message: 'a VMware datastore path: [datastore] path/file.iso',
            });
        }
      })
      .default({}),
    /**
     * A VM with a virtual TPM: `refuse` (default) does not migrate it; `new` gives it a new, empty TPM 2.0
     * (tpmstate0): secrets sealed to the old one (BitLocker keys) then need their recovery key.
     */
    tpm: z.enum(['refuse', 'new']).default('refuse'),
    /** Who may approve a cutover: `{ name, key }` (ed25519 public key), or plain names under `approvals: unsigned`. */
    approvers: z.array(approverEntry).min(1),
    /** `signed` (default): each approval is signed by the approver's key over the workflow id and the plan shown. */
    approvals: approvalMode,
    relocateTimeout: duration.default('12h'),
    /** A long activity (vMotion, import, shutdown) silent for this long counts as lost and is retried. */
    heartbeatTimeout: duration.default('1m'),
    cutover: z
      .object({
        /**
         * `import`: copy with import-from while the VM is off. `live-import`: create the VM at cutover with
         * live-restore, so it boots at once while PVE streams the disks in behind it.
         */
        mode: z
          .string()
          .refine((mode) => mode !== 'attach-then-move', {
            message:
              "'attach-then-move' is no longer supported: Proxmox VE cannot move a disk attached by absolute path (move_disk fails with \"unable to parse volume ID\"); use 'overlay' (runs at once from overlays, then moves the disks live), 'live-import' or 'import'",
          })
          .pipe(z.enum(['import', 'live-import', 'overlay']))
          .default('import'),
        shutdownTimeout: duration.default('5m'),
        /** Power the guest off if it does not shut down in time. */
        forcePowerOff: z.boolean().default(false),
        startAfter: z.boolean().default(false),
        /** Without approval by then, the cutover is not done (explicit outcome). */
        approvalDeadline: duration.optional(),
        importTimeout: duration.default('6h'),
        /** Shells get `agent: enabled=1` (verify-guest asks the guest agent; the guest needs qemu-guest-agent). */
        guestAgent: z.boolean().default(true),
        /** overlay: each live move's bandwidth in MiB/s (move_disk's bwlimit), so the running guest keeps its I/O; default none. */
        moveBandwidth: z.number().positive('MiB/s, more than 0').optional(),
      })
      .strict()
      .default({
        mode: 'import',
        shutdownTimeout: '5m',
        forcePowerOff: false,
        startAfter: false,
        importTimeout: '6h',
        guestAgent: true,
      }),
    /** verify-guest: whenever ferry starts the VM, it proves the guest is up before calling it migrated. */
    verify: verifySection,
    /** Guest conversion at cutover (virt-v2v-in-place on overlays; src/config/conversion.ts). */
    conversion: conversionSection,
    /** Where a wave's VMs and disks go, checked against capacity before anything moves (src/config/placement.ts). */
    ...placementKeys,
    /** HA registration after a verified cutover (src/config/ha.ts). */
    ...haKeys,
  })
  .strict()
  .superRefine(approversNeedKeys('migration'), ALWAYS);

/** Global limits, held by semaphore workflows across every worker. Changeable at run time (setPermits). */
export const limitsSection = z
  .object({
    vmotion: z.number().int().min(1).default(2),
    /** Disk imports at once, per target storage. */
    importPerStorage: z.number().int().min(1).default(2),
    sdn: z.number().int().min(1).default(1),
    /** Guest conversions at once (each runs a libguestfs appliance: CPU and ~1 GiB of memory). */
    convert: z.number().int().min(1).default(2),
    /** VM starts at once (start bursts). */
    vmStart: z.number().int().min(1).default(4),
  })
  .strict();

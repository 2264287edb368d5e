import { z } from 'zod';
import { ALWAYS, dnsName, duration } from './common';
import { approvalMode, approverEntry, approversNeedKeys } from './approvers';
import { PVE_VMID_MAX, PVE_VMID_MIN } from '../domain/vmid';
import {
  EXTRA_OPTION_KEYS,
  NETBOX_AFTER_TEARDOWN,
  PVE_NAME,
  PVE_STORAGE_ID,
  PVE_TAG,
} from '../domain/provisioning/spec';

const vmid = z.number().int().min(PVE_VMID_MIN).max(PVE_VMID_MAX);

/**
 * How ferry builds and tears down Proxmox VMs from NetBox records (src/domain/provisioning). A
 * NetBox VM's custom fields (ferry_node, ferry_storage, ferry_network, …) win over these defaults.
 */
export const provisioningSection = z
  .object({
    /** Proxmox node a VM is created on when its record names none (ferry_node); absent: placed over every online node. */
    node: z.string().regex(PVE_NAME, 'a Proxmox node name').optional(),
    /** Storage for disks when the record names none (ferry_storage). */
    storage: z.string().regex(PVE_STORAGE_ID, 'a Proxmox storage id').default('local-lvm'),
    /** Storage for the EFI vars disk (default: the VM's disk storage). */
    efiStorage: z.string().regex(PVE_STORAGE_ID, 'a Proxmox storage id').optional(),
    /** Linux bridge or SDN VNet of the first NIC when the record names none (ferry_network). */
    network: z.string().regex(PVE_STORAGE_ID, 'a bridge (vmbr0) or VNet id').default('vmbr0'),
    /** NetBox prefix the first NIC's address comes from (no address without one). */
    prefix: z
      .string()
      .regex(/^\d{1,3}(\.\d{1,3}){3}\/\d{1,2}$/, 'an IPv4 prefix such as 192.0.2.0/24')
      .optional(),
    /** Forward zone of the VMs' A records (`<name>.<dnsZone>`); no DNS records without one. */
    dnsZone: dnsName.optional(),
    /** VMIDs ferry hands out to records without ferry_vmid (one allocator workflow, never `nextid`). */
    vmidRange: z
      .object({ min: vmid, max: vmid })
      .strict()
      .refine(
        (r) =>
          typeof r !== 'object' ||
          r === null ||
          typeof r.min !== 'number' ||
          typeof r.max !== 'number' ||
          r.min <= r.max,
        { message: 'min must not be above max', ...ALWAYS },
      )
      .default({ min: 10_000, max: 99_999 }),
    ostype: z
      .string()
      .regex(/^[a-z0-9]+$/, 'a Proxmox ostype such as l26 or win11')
      .default('l26'),
    nicModel: z.enum(['virtio', 'e1000', 'e1000e', 'vmxnet3', 'rtl8139']).default('virtio'),
    /** Proxmox tags every provisioned VM gets (the NetBox VM's tags are added). */
    tags: z.array(z.string().regex(PVE_TAG, 'letters, digits, - _ + .')).default(['ferry']),
    /** Further VM options set through the config API after the hardware, e.g. `rng0: source=/dev/urandom`. */
    extras: z
      .record(z.string(), z.string().min(1))
      .refine(
        (e) => typeof e !== 'object' || e === null || Object.keys(e).every((k) => EXTRA_OPTION_KEYS.includes(k)),
        {
          message: `only these options: ${EXTRA_OPTION_KEYS.join(', ')}`,
          ...ALWAYS,
        },
      )
      .default({ rng0: 'source=/dev/urandom' }),
    /** The ACL each new VM gets (path /vms/<vmid>); none when omitted. */
    acl: z
      .object({
        roles: z.array(z.string().min(1)).min(1),
        users: z.array(z.string().min(1)).default([]),
        groups: z.array(z.string().min(1)).default([]),
      })
      .strict()
      .refine((a) => a.users.length + a.groups.length > 0, { message: 'name at least one user or group' })
      .optional(),
    /** Secure Boot with Microsoft's keys for VMs built from NetBox records; false where their images' boot loaders are unsigned. */
    secureBoot: z.boolean().default(true),
    /** Start every VM once provisioned (a run may ask for it too). Starts are held to limits.vmStart. */
    start: z.boolean().default(false),
    /** provisionPlanned: VM workflows at once. */
    maxConcurrent: z.number().int().min(1).max(500).default(10),
    /** Who may approve a teardown that needs approval: `{ name, key }`, or plain names under `approvals: unsigned`. */
    approvers: z.array(approverEntry).default([]),
    /** `signed` (default): each teardown approval is signed by the approver's key over the workflow id and the target. */
    approvals: approvalMode,
    /** A VM task silent for this long counts as lost (worker died) and is retried. */
    heartbeatTimeout: duration.default('1m'),
    /** Backoff of retried activities (transient errors, locks): from the first interval, doubling up to the maximum. */
    retry: z
      .object({ initialInterval: duration.default('1s'), maximumInterval: duration.default('30s') })
      .strict()
      .default({ initialInterval: '1s', maximumInterval: '30s' }),
    /** How often a wait on a condition (VM visible cluster-wide, VM stopped) checks it. */
    pollInterval: duration.default('2s'),
    /** verify-guest: how long after the guest agent answered its MACs and address may take to show. */
    guestNetworkTimeout: duration.default('1m'),
    teardown: z
      .object({
        /** NetBox statuses whose VMs are torn down only after a person approves. */
        approvalFor: z.array(z.string().min(1)).default(['active']),
        /** Without a decision by then, nothing is torn down (explicit outcome). */
        approvalDeadline: duration.optional(),
        /** What happens to the NetBox VM: deleted, or kept with this status. */
        netbox: z.enum(NETBOX_AFTER_TEARDOWN).default('delete'),
        /** How long the guest gets to shut down (ACPI) before it is stopped hard. */
        shutdownTimeout: duration.default('2m'),
        /** Remove the VM's names and addresses from knownHosts.file. */
        knownHosts: z.boolean().default(true),
        /** Tries of each cleanup before it is reported failed (the others go on regardless). */
        cleanupAttempts: z.number().int().min(1).max(100).default(5),
      })
      .strict()
      .default({
        approvalFor: ['active'],
        netbox: 'delete',
        shutdownTimeout: '2m',
        knownHosts: true,
        cleanupAttempts: 5,
      }),
  })
  .strict()
  .superRefine((p, ctx) => {
    if (typeof p !== 'object' || p === null) return; // the section's type error says it
    const approvalFor: unknown = p.teardown?.approvalFor;
    const approvers: unknown = p.approvers;
    if (Array.isArray(approvalFor) && approvalFor.length > 0 && Array.isArray(approvers) && approvers.length === 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['approvers'],
        message: `teardown.approvalFor (${approvalFor.join(', ')}) needs approvers (or set teardown.approvalFor: [])`,
      });
    }
    approversNeedKeys('provisioning')(p, ctx);
  }, ALWAYS);

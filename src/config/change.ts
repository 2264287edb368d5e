import { changePolicySchema } from '../domain/change/policy-schema';

/**
 * ferry.yaml `change`: what day 2 does with differences it did not cause (hand changes in Proxmox,
 * conflicts), MAC changes, and the disks a change leaves behind. The policy's rules and defaults live
 * with the change plan (src/domain/change/policy.ts, checked by policy-schema.ts); see docs/change.md.
 */
export const changeSection = changePolicySchema.default(() => changePolicySchema.parse({}));

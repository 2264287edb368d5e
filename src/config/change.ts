import { z } from 'zod';
import { changePolicySchema } from '../domain/change/policy-schema';
import { duration } from './common';
import { cutoverWindowSchema } from './cutover-window';

/** A restart ferry does when an approval asks for it: ACPI shutdown, then (if `forceStop`) a hard stop after the timeout. */
const restartSchema = z
  .object({ shutdownTimeout: duration.default('3m'), forceStop: z.boolean().default(true) })
  .strict()
  .default({ shutdownTimeout: '3m', forceStop: true });

/**
 * ferry.yaml `change`: what day 2 does with differences it did not cause (hand changes in Proxmox,
 * conflicts), MAC changes and the disks a change leaves behind (the policy: its rules and defaults live
 * with the change plan, src/domain/change/policy.ts; see docs/change.md), and how `changeVm` runs: how
 * long it waits for a burst of NetBox edits to end, the maintenance window in which changes that wait
 * for a restart are written without an approval, and how ferry restarts a guest when asked to.
 */
const changeObject = changePolicySchema
  .extend({
    /** After a NetBox edit, how long no further edit must come before the plan is made (one plan per burst). */
    debounce: duration.default('10s'),
    /** Inside it, changes that wait for a restart are written (pending) without an approval; ferry does not restart. */
    window: cutoverWindowSchema.optional(),
    restart: restartSchema,
  })
  .strict();

export const changeSection = changeObject.default(() => changeObject.parse({}));

import { z } from 'zod';
import { cutoverWindowProblem, type CutoverWindow } from '../domain/migration/cutover-window';

/**
 * A wave's `cutoverWindow`: `{ start: "22:00", end: "02:00", timeZone: Europe/Berlin }`; an end at or
 * before the start crosses midnight. The checks are the domain's, so the wave and the CLI agree.
 */
export const cutoverWindowSchema = z
  .object({ start: z.string(), end: z.string(), timeZone: z.string() })
  .strict()
  .superRefine((window, ctx) => {
    const problem = cutoverWindowProblem(window);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  }) satisfies z.ZodType<CutoverWindow>;

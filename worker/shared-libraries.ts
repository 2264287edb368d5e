/**
 * The libraries workflow code uses, evaluated once per worker and shared by every workflow (see
 * sharedWorkflowModules). Referenced here, or webpack drops them: they declare no side effects.
 */
import * as ed25519 from '@noble/curves/ed25519';
import * as sha2 from '@noble/hashes/sha2';
import * as luxon from 'luxon';
import { z } from 'zod';

void [ed25519, sha2, luxon];
// zod sets its global defaults (locale, memoizer) on the first schema it builds; do it now, before the
// SDK freezes the shared modules, and not in a workflow, where its frozen config would refuse them.
z.object({ name: z.string().min(1) }).safeParse({});

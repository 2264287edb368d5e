import {
  changeDecision,
  describeEdit,
  parseNetboxDelivery,
  type ChangeDecision,
  type VmFacts,
} from '../domain/netbox-events';
import { checkWebhookSignature } from '../netbox/webhook-signature';
import { TemporalUnavailable } from './signal-change';

/** What the receiver needs for one delivery; the parts that talk to NetBox and Temporal are passed in. */
export interface DeliveryDeps {
  /** The webhook's secret (FERRY_NETBOX_WEBHOOK_SECRET): NetBox signs with it. */
  secret: string;
  /** The VM's status and ferry_vmid as NetBox has them now, or `gone` (404). */
  readVm(netboxId: number): Promise<VmFacts | 'gone'>;
  /** Signal-with-start of `changeVm`; throws TemporalUnavailable when Temporal does not take it. */
  signal(decision: Extract<ChangeDecision, { kind: 'signal' }>): Promise<{ runId: string }>;
  log(line: string): void;
}

/** The receiver's answer: NetBox counts a 2xx as delivered and shows the rest as a failed job. */
export interface Reply {
  status: number;
  body: Record<string, unknown>;
}

/**
 * One delivery from NetBox: the signature over the raw body first (401 unsigned, 403 forged: nothing
 * read, nothing started), then the payload (400, saying what is wrong), then the VM, then the decision:
 * 200 ignored (with why), 202 once Temporal has the signal, 503 when NetBox or Temporal cannot be reached.
 */
export async function handleDelivery(
  deps: DeliveryDeps,
  body: Buffer,
  signature: string | string[] | undefined,
): Promise<Reply> {
  const check = checkWebhookSignature(body, signature, deps.secret);
  if (!check.ok) {
    deps.log(`netbox webhook: refused (${check.problem}): ${check.detail}; nothing started`);
    return { status: check.problem === 'missing' ? 401 : 403, body: { error: check.detail } };
  }
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch (err) {
    return invalid(deps, [`(body): not JSON (${(err as Error).message})`]);
  }
  const parsed = parseNetboxDelivery(json);
  if (parsed.kind === 'invalid') return invalid(deps, parsed.problems);
  if (parsed.kind === 'not-followed') return ignored(deps, parsed.reason);
  const { event } = parsed;
  const what = describeEdit(event.edit, event.vmNetboxId);
  let vm: VmFacts | 'gone';
  try {
    vm = event.vm ?? (await deps.readVm(event.vmNetboxId));
  } catch (err) {
    const message = `cannot read NetBox VM ${event.vmNetboxId}: ${(err as Error).message}`;
    deps.log(`netbox webhook: ${what}: ${message}; nothing started (NetBox shows the delivery failed)`);
    return { status: 503, body: { error: message } };
  }
  const decision = changeDecision(event, vm);
  if (decision.kind === 'ignore') return ignored(deps, decision.reason, what);
  return signal(deps, what, decision);
}

async function signal(
  deps: DeliveryDeps,
  what: string,
  decision: Extract<ChangeDecision, { kind: 'signal' }>,
): Promise<Reply> {
  try {
    const { runId } = await deps.signal(decision);
    deps.log(`netbox webhook: ${what}: signalled ${decision.workflowId} (run ${runId})`);
    return { status: 202, body: { workflowId: decision.workflowId, runId } };
  } catch (err) {
    const message = (err as Error).message;
    const status = err instanceof TemporalUnavailable ? 503 : 500;
    deps.log(`netbox webhook: ${what}: ${decision.workflowId} not signalled: ${message}`);
    return { status, body: { error: `${decision.workflowId} not signalled: ${message}` } };
  }
}

function invalid(deps: DeliveryDeps, problems: string[]): Reply {
  deps.log(`netbox webhook: refused a payload that is not NetBox's: ${problems.join('; ')}`);
  return { status: 400, body: { error: "not NetBox's webhook payload", problems } };
}

function ignored(deps: DeliveryDeps, reason: string, what?: string): Reply {
  deps.log(`netbox webhook: ${what ? `${what}: ` : ''}ignored: ${reason}`);
  return { status: 200, body: { ignored: reason } };
}

import {
  newProvisionStatus,
  type ProvisionResult,
  type ProvisionSpec,
  type ProvisioningSettings,
} from '../src/domain/provisioning';
import { provisionStatusQuery } from '../src/domain/messages';
import { ProvisionRun } from './provisioning/run-context';
import { loadProvisioningSettings } from './provisioning/settings';
import { assignAddress } from './provisioning/stages/address';
import { buildBareVm } from './provisioning/stages/build-vm';
import { refuseClash } from './provisioning/stages/check';
import { attachCloudInit } from './provisioning/stages/cloud-init';
import { registerDns } from './provisioning/stages/dns';
import { markStaged } from './provisioning/stages/handover';
import { fitHardware } from './provisioning/stages/hardware';
import { recordNetboxInterfaces } from './provisioning/stages/netbox';
import { placeVm } from './provisioning/stages/place';
import { preflight } from './provisioning/stages/preflight';
import { resolveSpec, resolveVmid } from './provisioning/stages/resolve';
import { startVm } from './provisioning/stages/start';
import { bootsImage, verifyProvisionedGuest } from './provisioning/stages/verify-guest';
import { openStatus } from './vm/run';

export interface ProvisionVmInput {
  /** The NetBox VM to build (status planned; a staged one is checked and finished). */
  netboxId?: number;
  /** Or a whole spec (see src/domain/provisioning/spec.ts), validated here. */
  spec?: unknown;
  /** Start the VM at the end (default: the spec's, else provisioning.start). */
  start?: boolean;
  /** Resolved once by provisionPlanned; a standalone run loads them from the worker's configuration. */
  settings?: ProvisioningSettings;
  /** provisionPlanned's placement of its batch, for a record that names no node: kept, its storages checked again. */
  placedNode?: string;
}

/**
 * Builds one VM, stage by stage (workflows/provisioning/stages/): resolve → vmid → check → place →
 * preflight → create → hardware → netbox → address → dns → cloud-init → handover (→ start →
 * verify-guest). Every step checks before it acts, so a rerun of a finished provision writes nothing,
 * and a crashed worker costs a retry, never a second VM.
 */
export async function provisionVm(input: ProvisionVmInput): Promise<ProvisionResult> {
  const status = openStatus('provision', newProvisionStatus(input.netboxId), provisionStatusQuery);
  const run = new ProvisionRun(input.settings ?? (await loadProvisioningSettings()), status);
  try {
    run.enter('resolve');
    await provision(run, input);
  } catch (err) {
    run.failed(err);
    run.end('failed');
    throw err;
  }
  run.end('done');
  status.outcome = 'provisioned';
  return { ...status, outcome: 'provisioned' };
}

async function provision(run: ProvisionRun, input: ProvisionVmInput): Promise<void> {
  const spec: ProvisionSpec = await resolveSpec(run, input);
  const unplaced = await resolveVmid(run, spec);
  const found = await refuseClash(unplaced);
  const vm = await placeVm(unplaced, found, input.placedNode);
  await preflight(vm);
  await buildBareVm(vm, found);
  await fitHardware(vm);
  const interfaceIds = await recordNetboxInterfaces(vm);
  await assignAddress(vm, interfaceIds);
  await registerDns(vm);
  await attachCloudInit(vm);
  await markStaged(vm);
  if (!spec.start) return;
  vm.enter('start');
  await startVm(vm);
  if (!bootsImage(spec)) return;
  vm.enter('verify-guest');
  await verifyProvisionedGuest(vm);
}

import { setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import {
  newProvisionStatus,
  type ProvisionResult,
  type ProvisionStage,
  type ProvisionStatus,
  type ProvisioningSettings,
} from '../src/domain/provisioning';
import { FerryKind } from '../src/domain/search-attributes';
import { provisionStatusQuery } from '../src/domain/messages';
import { failureMessage } from './failures';
import { loadSettings } from './provisioning/proxies';
import { provisionRun } from './provisioning/run-context';
import { stageSetter, type EnterStage } from './provisioning/stage';
import { assignAddress } from './provisioning/stages/address';
import { attachCloudInit } from './provisioning/stages/cloud-init';
import { buildBareVm } from './provisioning/stages/build-vm';
import { refuseClash } from './provisioning/stages/check';
import { registerDns } from './provisioning/stages/dns';
import { markStaged } from './provisioning/stages/handover';
import { fitHardware } from './provisioning/stages/hardware';
import { recordNetboxInterfaces } from './provisioning/stages/netbox';
import { placeVm } from './provisioning/stages/place';
import { preflight } from './provisioning/stages/preflight';
import { resolveSpec, resolveVmid } from './provisioning/stages/resolve';
import { bootPveVm } from './provisioning/stages/start';
import { bootsImage, verifyProvisionedGuest } from './provisioning/stages/verify-guest';

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
 * Builds one VM, stage by stage (workflows/provisioning/stages/). Every step checks before it acts,
 * so a rerun of a finished provision writes nothing, and a crashed worker costs a retry, never a
 * second VM.
 */
export async function provisionVm(input: ProvisionVmInput): Promise<ProvisionResult> {
  const status = newProvisionStatus(input.netboxId);
  setHandler(provisionStatusQuery, () => status);
  upsertSearchAttributes([{ key: FerryKind, value: 'provision' }]);
  const enter = stageSetter(status);
  try {
    enter('resolve');
    await provision(input, status, enter);
  } catch (err) {
    status.error = failureMessage(err);
    enter('failed');
    throw err;
  }
  enter('done');
  status.outcome = 'provisioned';
  return { ...status, outcome: 'provisioned' };
}

async function provision(
  input: ProvisionVmInput,
  status: ProvisionStatus,
  enter: EnterStage<ProvisionStage>,
): Promise<void> {
  const settings = input.settings ?? (await loadSettings());
  const run = provisionRun(settings, status, enter);
  const spec = await resolveSpec(run, input);
  const unplaced = await resolveVmid(run, spec);
  const found = await refuseClash(unplaced);
  const vm = await placeVm(unplaced, found, input.placedNode);
  await preflight(vm);
  await buildBareVm(vm, found);
  await fitHardware(vm);
  const interfaceIds = await recordNetboxInterfaces(vm);
  await assignAddress(vm, interfaceIds);
  await registerDns(vm);
  // Only specs with cloudInit or an imported image take these stages: recorded histories have neither.
  await attachCloudInit(vm);
  await markStaged(vm);
  if (spec.start) await bootPveVm(vm);
  if (spec.start && bootsImage(spec)) await verifyProvisionedGuest(vm);
}

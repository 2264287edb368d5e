import { assessInventory, vmidOccupancy, type MigrateVmResult } from '../../../src/domain/migration';
import type { MigrationRun } from '../run-context';

/** What the VM is, and whether ferry can and may build it (its VMID free, or ferry's own VM there). */
export async function validate(run: MigrationRun): Promise<MigrateVmResult | undefined> {
  // A wave passes a reference (the moid), not an inventory copy: the VM is read here, as it is now.
  const snapshot =
    run.input.snapshot ??
    (await run.acts.read.readVmForMigration.executeWithOptions({ summary: `read VM ${run.moid} from vCenter` }, [
      { moid: run.moid },
    ]));
  const assessed = assessInventory({ vms: [snapshot.vm], portgroups: snapshot.portgroups }, run.settings.rules);
  const assessment = assessed.vms[0]!;
  run.assessed(assessment);
  if (assessment.refusals.length > 0) return run.refuse(assessment.refusals);
  const vmid = assessment.vmid!;
  const occupancy = vmidOccupancy(
    vmid,
    assessment.pveName,
    await run.acts.read.findPveVms.executeWithOptions(
      { summary: `is VMID ${vmid} or the name ${assessment.pveName} taken on Proxmox?` },
      [{ vmid, name: assessment.pveName }],
    ),
  );
  if (occupancy.kind === 'clash') return run.refuse([occupancy.refusal]);
  run.vm = { snapshot, assessment, vnetPlan: assessed.vnetPlan, vmid, occupancy };
  return undefined;
}

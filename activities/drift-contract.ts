/**
 * The drift report's one activity: a cluster's built VMs read on both sides in bulk (NetBox in pages,
 * Proxmox with bounded concurrency), each planned with the change plan, nothing written, and only the
 * report's summary returned (it must fit Temporal's payload limit).
 */
import type { DriftReport } from '../src/domain/change';

export interface DriftActivities {
  readDriftReport(input: { cluster: string; tag?: string }): Promise<DriftReport>;
}

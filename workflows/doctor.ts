import { proxyActivities, upsertSearchAttributes } from '@temporalio/workflow';
import type { DoctorActivities } from '../activities/doctor';
import { doctorReport, type DoctorReport, type Endpoint, type EndpointVerdict } from '../src/domain/doctor';
import { FerryKind } from '../src/domain/search-attributes';
import { failureMessage } from './failures';

// A check answers quickly or the endpoint is unhealthy; a failed check is a verdict, not a reason to retry.
const CHECK_OPTIONS = { startToCloseTimeout: '45s', retry: { maximumAttempts: 1 } } as const;
const checks = proxyActivities<DoctorActivities>(CHECK_OPTIONS);

const checkActivity: Record<Endpoint, (typeof checks)['checkTemporal']> = {
  temporal: checks.checkTemporal,
  proxmox: checks.checkProxmox,
  vsphere: checks.checkVsphere,
  netbox: checks.checkNetbox,
  dns: checks.checkDns,
};

/** Checks every configured endpoint (reachability, credentials, TLS, version) and returns one verdict each. */
export async function doctor(): Promise<DoctorReport> {
  upsertSearchAttributes([{ key: FerryKind, value: 'doctor' }]);
  const endpoints = await checks.listEndpoints();
  const verdicts = await Promise.all(
    endpoints.map(async ({ endpoint, target }): Promise<EndpointVerdict> => {
      try {
        return await checkActivity[endpoint].executeWithOptions({ summary: `check ${endpoint} at ${target}` }, []);
      } catch (err) {
        // The activity itself failed (worker lost, timeout): still a verdict for this endpoint.
        return {
          endpoint,
          target,
          ok: false,
          reachable: false,
          authenticated: null,
          tls: 'failed',
          detail: `check did not complete: ${failureMessage(err)}`,
          latencyMs: 0,
        };
      }
    }),
  );
  return doctorReport(verdicts);
}

import { isGrpcServiceError, type Client } from '@temporalio/client';
import type { FerryConfig } from '../config';
import type { EndpointVerdict } from '../domain/doctor';
import { timedCheck } from './verdict';

/** Temporal: the frontend answers, the namespace exists and is readable with our credentials. */
export function checkTemporal(client: Client, config: FerryConfig['temporal']): Promise<EndpointVerdict> {
  const tls = config.tls.enabled || config.tls.serverCaFile || config.apiKey ? 'verified' : 'plaintext';
  return timedCheck(
    { endpoint: 'temporal', target: config.address },
    async () => {
      const info = await client.workflowService.getSystemInfo({});
      const ns = await client.workflowService.describeNamespace({ namespace: config.namespace });
      const state = ns.namespaceInfo?.state;
      return {
        ok: true,
        reachable: true,
        authenticated: true,
        tls,
        version: info.serverVersion ? `server ${info.serverVersion}` : undefined,
        detail: `namespace ${config.namespace} is ${state === 1 ? 'registered' : `in state ${String(state)}`}`,
      };
    },
    (err) => {
      // gRPC status: 5 NOT_FOUND (namespace), 7 PERMISSION_DENIED, 16 UNAUTHENTICATED; others mean unreachable.
      const code = isGrpcServiceError(err) ? err.code : undefined;
      const denied = code === 7 || code === 16;
      return { reachable: denied || code === 5, authenticated: denied ? false : code === 5 ? true : null, tls };
    },
  );
}

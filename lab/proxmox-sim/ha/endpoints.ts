import type { HttpMethod } from '../schema/endpoints';

/**
 * The HA manager's endpoints the simulator serves (ha/routes.ts). Rules exist in the 9.1 schema only, so
 * the 8.4 simulator answers 501 for them, as for any path its version lacks.
 */
export const HA_ENDPOINTS: ReadonlyArray<{ path: string; methods: readonly HttpMethod[] }> = [
  { path: '/cluster/ha', methods: ['GET'] },
  { path: '/cluster/ha/resources', methods: ['GET', 'POST'] },
  { path: '/cluster/ha/resources/{sid}', methods: ['GET', 'PUT', 'DELETE'] },
  { path: '/cluster/ha/groups', methods: ['GET', 'POST'] },
  { path: '/cluster/ha/groups/{group}', methods: ['GET', 'PUT', 'DELETE'] },
  { path: '/cluster/ha/rules', methods: ['GET', 'POST'] },
  { path: '/cluster/ha/rules/{rule}', methods: ['GET', 'PUT', 'DELETE'] },
  { path: '/cluster/ha/status/current', methods: ['GET'] },
];

/**
 * The Proxmox VE API endpoints the simulator serves. The schema subset committed next to this file
 * (`pve-<version>.subset.json`) holds exactly these entries of the official schema, for each flavour
 * that has them; `npm run pve-schema-subset` regenerates it from ../shared/pve-api.
 */
import { AGENT_ENDPOINTS } from './agent-endpoints';
import { HA_ENDPOINTS } from '../ha/endpoints';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

export const SIMULATED_ENDPOINTS: ReadonlyArray<{ path: string; methods: readonly HttpMethod[] }> = [
  { path: '/version', methods: ['GET'] },
  { path: '/access/ticket', methods: ['POST'] },
  { path: '/access/acl', methods: ['GET', 'PUT'] },
  { path: '/cluster/resources', methods: ['GET'] },
  { path: '/cluster/nextid', methods: ['GET'] },
  { path: '/cluster/status', methods: ['GET'] },
  { path: '/cluster/sdn', methods: ['PUT'] },
  { path: '/cluster/sdn/zones', methods: ['GET', 'POST'] },
  { path: '/cluster/sdn/zones/{zone}', methods: ['GET', 'PUT', 'DELETE'] },
  { path: '/cluster/sdn/vnets', methods: ['GET', 'POST'] },
  { path: '/cluster/sdn/vnets/{vnet}', methods: ['GET', 'PUT', 'DELETE'] },
  // PVE 9 only (pve-network >= 1.1.3): absent from the 8.4 schema, so the 8.4 simulator answers 501.
  { path: '/cluster/sdn/lock', methods: ['POST', 'DELETE'] },
  { path: '/cluster/sdn/rollback', methods: ['POST'] },
  { path: '/storage', methods: ['GET'] },
  { path: '/pools', methods: ['GET', 'POST', 'PUT', 'DELETE'] },
  { path: '/pools/{poolid}', methods: ['GET', 'PUT', 'DELETE'] },
  { path: '/nodes', methods: ['GET'] },
  { path: '/nodes/{node}/status', methods: ['GET'] },
  { path: '/nodes/{node}/network', methods: ['GET'] },
  { path: '/nodes/{node}/qemu', methods: ['GET', 'POST'] },
  { path: '/nodes/{node}/qemu/{vmid}', methods: ['GET', 'DELETE'] },
  { path: '/nodes/{node}/qemu/{vmid}/config', methods: ['GET', 'POST', 'PUT'] },
  { path: '/nodes/{node}/qemu/{vmid}/pending', methods: ['GET'] },
  { path: '/nodes/{node}/qemu/{vmid}/unlink', methods: ['PUT'] },
  { path: '/nodes/{node}/qemu/{vmid}/resize', methods: ['PUT'] },
  { path: '/nodes/{node}/qemu/{vmid}/move_disk', methods: ['POST'] },
  { path: '/nodes/{node}/qemu/{vmid}/snapshot', methods: ['GET', 'POST'] },
  { path: '/nodes/{node}/qemu/{vmid}/snapshot/{snapname}', methods: ['GET', 'DELETE'] },
  { path: '/nodes/{node}/qemu/{vmid}/snapshot/{snapname}/config', methods: ['GET', 'PUT'] },
  { path: '/nodes/{node}/qemu/{vmid}/snapshot/{snapname}/rollback', methods: ['POST'] },
  { path: '/nodes/{node}/qemu/{vmid}/clone', methods: ['POST'] },
  { path: '/nodes/{node}/qemu/{vmid}/template', methods: ['POST'] },
  { path: '/nodes/{node}/qemu/{vmid}/feature', methods: ['GET'] },
  { path: '/nodes/{node}/qemu/{vmid}/status', methods: ['GET'] },
  { path: '/nodes/{node}/qemu/{vmid}/status/current', methods: ['GET'] },
  { path: '/nodes/{node}/qemu/{vmid}/status/start', methods: ['POST'] },
  { path: '/nodes/{node}/qemu/{vmid}/status/stop', methods: ['POST'] },
  { path: '/nodes/{node}/qemu/{vmid}/status/shutdown', methods: ['POST'] },
  { path: '/nodes/{node}/qemu/{vmid}/status/reset', methods: ['POST'] },
  { path: '/nodes/{node}/qemu/{vmid}/status/reboot', methods: ['POST'] },
  { path: '/nodes/{node}/qemu/{vmid}/status/suspend', methods: ['POST'] },
  { path: '/nodes/{node}/qemu/{vmid}/status/resume', methods: ['POST'] },
  { path: '/nodes/{node}/qemu/{vmid}/migrate', methods: ['GET', 'POST'] },
  { path: '/nodes/{node}/tasks', methods: ['GET'] },
  { path: '/nodes/{node}/tasks/{upid}/status', methods: ['GET'] },
  { path: '/nodes/{node}/tasks/{upid}/log', methods: ['GET'] },
  { path: '/nodes/{node}/storage', methods: ['GET'] },
  { path: '/nodes/{node}/storage/{storage}/status', methods: ['GET'] },
  { path: '/nodes/{node}/storage/{storage}/content', methods: ['GET'] },
  { path: '/nodes/{node}/lxc', methods: ['GET'] },
  ...AGENT_ENDPOINTS,
  ...HA_ENDPOINTS,
];

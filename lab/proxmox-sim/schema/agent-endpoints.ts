import type { HttpMethod } from './endpoints';

/**
 * The guest agent endpoints the simulator serves (part of SIMULATED_ENDPOINTS): qemu-server's
 * PVE/API2/Qemu/Agent.pm registers one endpoint per parameterless QGA command, with the method below,
 * plus the index and the old generic `POST …/agent {command}`.
 */
export const AGENT_COMMANDS: Readonly<Record<string, HttpMethod>> = {
  ping: 'POST',
  'get-time': 'GET',
  info: 'GET',
  'fsfreeze-status': 'POST',
  'fsfreeze-freeze': 'POST',
  'fsfreeze-thaw': 'POST',
  fstrim: 'POST',
  'network-get-interfaces': 'GET',
  'get-vcpus': 'GET',
  'get-fsinfo': 'GET',
  'get-memory-blocks': 'GET',
  'get-memory-block-info': 'GET',
  'suspend-hybrid': 'POST',
  'suspend-ram': 'POST',
  'suspend-disk': 'POST',
  shutdown: 'POST',
  'get-host-name': 'GET',
  'get-osinfo': 'GET',
  'get-users': 'GET',
  'get-timezone': 'GET',
};

export const AGENT_BASE = '/nodes/{node}/qemu/{vmid}/agent';

/** The commands Agent.pm registers by hand, with parameters (routes/agent-commands.ts). */
export const AGENT_PARAMETER_COMMANDS: Readonly<Record<string, HttpMethod>> = {
  exec: 'POST',
  'exec-status': 'GET',
  'file-read': 'GET',
  'file-write': 'POST',
  'set-user-password': 'POST',
};

export const AGENT_ENDPOINTS: ReadonlyArray<{ path: string; methods: readonly HttpMethod[] }> = [
  { path: AGENT_BASE, methods: ['GET', 'POST'] },
  ...Object.entries({ ...AGENT_COMMANDS, ...AGENT_PARAMETER_COMMANDS }).map(([command, method]) => ({
    path: `${AGENT_BASE}/${command}`,
    methods: [method],
  })),
];

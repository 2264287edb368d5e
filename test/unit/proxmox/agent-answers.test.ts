import { agentInterfacesSchema, agentPingSchema, vmRunStateSchema } from '../../../src/proxmox/agent';
import { toActivityFailure } from '../../../activities/failures';
import { errorFromResponse } from '../../../src/proxmox/errors';

/** The guest agent's answers as PVE wraps them (`{ result: … }`), checked by the client's schemas. */
describe('guest agent answers', () => {
  it('reads network-get-interfaces as the agent reports it', () => {
    const answer = {
      result: [
        {
          name: 'lo',
          'hardware-address': '00:00:00:00:00:00',
          'ip-addresses': [{ 'ip-address': '127.0.0.1', 'ip-address-type': 'ipv4', prefix: 8 }],
          statistics: { 'rx-bytes': 0 },
        },
        {
          name: 'ens18',
          'hardware-address': '00:50:56:01:00:01',
          'ip-addresses': [{ 'ip-address': '198.51.100.21', 'ip-address-type': 'ipv4', prefix: 24 }],
        },
        { name: 'sit0' },
      ],
    };
    expect(agentInterfacesSchema.parse(answer)).toEqual([answer.result[0], answer.result[1], { name: 'sit0' }]);
  });

  it('names the field when the answer is not the agent’s shape', () => {
    const bad = agentInterfacesSchema.safeParse({
      result: [{ name: 'ens18', 'ip-addresses': [{ 'ip-address': '1.2.3.4', 'ip-address-type': 'ipx', prefix: 24 }] }],
    });
    expect(bad.success).toBe(false);
    expect(bad.error!.issues[0]!.path).toEqual(['result', 0, 'ip-addresses', 0, 'ip-address-type']);
    expect(agentPingSchema.safeParse({}).success).toBe(false);
    expect(agentPingSchema.parse({ result: {} })).toEqual({});
  });

  it('reads status/current with QMP’s status, uptime and whether the agent is configured (0/1)', () => {
    expect(
      vmRunStateSchema.parse({ status: 'running', qmpstatus: 'paused', uptime: 12, agent: 1, name: 'x' }),
    ).toMatchObject({ status: 'running', qmpstatus: 'paused', uptime: 12, agent: true });
  });

  it('a not-configured agent fails the activity at once; a not-running one is retried', () => {
    const ctx = { method: 'POST', path: '/nodes/pve1/qemu/100/agent/ping' };
    const notConfigured = toActivityFailure(errorFromResponse(500, 'No QEMU guest agent configured', undefined, ctx));
    expect(notConfigured).toMatchObject({ nonRetryable: true });
    expect((notConfigured as Error).message).toMatch(/agent: enabled=1 \(migration\.cutover\.guestAgent\)/);
    expect(toActivityFailure(errorFromResponse(500, 'QEMU guest agent is not running', undefined, ctx))).toMatchObject({
      nonRetryable: false,
    });
  });
});

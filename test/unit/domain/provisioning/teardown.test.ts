import {
  approvalReason,
  describeCleanup,
  knownHostNames,
  mergeTargets,
  teardownOutcome,
  teardownWorkflowId,
  type TeardownTarget,
} from '../../../../src/domain/provisioning';

const live: TeardownTarget = {
  vmid: 9001,
  name: 'web1',
  node: 'pve1',
  power: 'running',
  netboxId: 4,
  netboxStatus: 'staged',
  fqdn: 'web1.lab.test',
  addresses: [{ address: '192.0.2.5/24', id: 7 }],
  interfaces: [{ id: 3, name: 'net0', macIds: [9] }],
};

describe('teardown rules', () => {
  it('asks for approval for the configured statuses, or when asked', () => {
    expect(approvalReason({ netboxId: 4, netboxStatus: 'active' }, ['active'])).toBe(
      'NetBox VM 4 is active; provisioning.teardown.approvalFor needs a person to approve that',
    );
    expect(approvalReason({ netboxId: 4, netboxStatus: 'staged' }, ['active'])).toBeUndefined();
    expect(approvalReason({}, ['active'])).toBeUndefined();
    expect(approvalReason({ netboxStatus: 'staged' }, [], true)).toBe(
      'approval was asked for when the teardown was started',
    );
  });

  it('knows the names and addresses known_hosts may hold', () => {
    expect(knownHostNames(live)).toEqual(['web1', 'web1.lab.test', '192.0.2.5']);
    expect(
      knownHostNames({ vmid: 1, addresses: [{ address: '192.0.2.9' }, { address: '192.0.2.9/32' }], interfaces: [] }),
    ).toEqual(['192.0.2.9']);
  });

  it('fills a rerun’s target with what the first run knew and is gone now', () => {
    const now: TeardownTarget = { vmid: 9001, addresses: [{ address: '192.0.2.6' }], interfaces: [] };
    expect(mergeTargets(now, live)).toEqual({
      vmid: 9001,
      name: 'web1',
      netboxId: 4,
      netboxStatus: 'staged',
      fqdn: 'web1.lab.test',
      addresses: [{ address: '192.0.2.6' }, { address: '192.0.2.5/24', id: 7 }],
      interfaces: [{ id: 3, name: 'net0', macIds: [9] }],
    });
    // Known things are not duplicated; the live read wins.
    expect(mergeTargets(live, { ...live, node: 'pve2', addresses: [{ address: '192.0.2.5/24' }] })).toEqual(live);
    expect(mergeTargets(live, undefined)).toBe(live);
  });

  it('ignores a first run about another VM', () => {
    expect(mergeTargets(live, { ...live, vmid: 9002, fqdn: 'x' })).toBe(live);
    expect(mergeTargets(live, { ...live, netboxId: 5, fqdn: 'x' })).toBe(live);
    expect(mergeTargets(live, { ...live, name: 'other', fqdn: 'x' })).toBe(live);
  });

  it('is incomplete while any cleanup failed', () => {
    const done = { cleanup: 'dns' as const, result: 'done' as const, detail: 'removed PTR 192.0.2.5' };
    expect(
      teardownOutcome([
        done,
        { cleanup: 'ip', result: 'already-absent', detail: '' },
        { cleanup: 'known-hosts', result: 'skipped', detail: '' },
      ]),
    ).toBe('torn-down');
    expect(teardownOutcome([done, { cleanup: 'ip', result: 'failed', detail: 'not done', error: 'boom' }])).toBe(
      'incomplete',
    );
    expect(describeCleanup({ cleanup: 'ip', result: 'failed', detail: 'not done', error: 'boom' })).toBe(
      'ip          failed: not done — boom',
    );
    expect(teardownWorkflowId(9001)).toBe('teardown-9001');
  });
});

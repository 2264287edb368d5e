import {
  describeInterfaces,
  discoveredAddress,
  describeVerification,
  downtimeSeconds,
  expectedAddress,
  interfaceChecks,
  probeAddress,
  verdict,
  verifySettingsOf,
  DEFAULT_VERIFY,
  guestChecked,
  type GuestCheck,
  type GuestInterface,
} from '../../../../src/domain/migration';

const MACS = ['00:50:56:01:00:02', '00:50:56:01:00:03'];
const GUEST: GuestInterface[] = [
  { name: 'lo', mac: '00:00:00:00:00:00', addresses: ['127.0.0.1/8', '::1/128'] },
  { name: 'ens18', mac: '00:50:56:01:00:02', addresses: ['198.51.100.22/24', 'fe80::250:56ff:fe01:2/64'] },
  { name: 'ens19', mac: '00:50:56:01:00:03', addresses: ['203.0.113.22/24'] },
];
const check = (name: GuestCheck['check'], result: GuestCheck['result'], at: number): GuestCheck => ({
  check: name,
  result,
  at,
  detail: name,
});

describe('the expected address', () => {
  it('comes from migration.verify.expect first, then from discovery, else there is none', () => {
    expect(expectedAddress('app02', { app02: '198.51.100.22/24' }, '10.0.0.1')).toEqual({
      address: '198.51.100.22',
      source: 'config',
    });
    expect(expectedAddress('app02', { other: '1.2.3.4' }, '198.51.100.22')).toEqual({
      address: '198.51.100.22',
      source: 'discovery',
    });
    expect(expectedAddress('app02', {}, undefined)).toBeUndefined();
    expect(expectedAddress('app02', {}, '')).toBeUndefined();
    expect(expectedAddress('v6', { v6: '2001:DB8::5' })).toEqual({ address: '2001:db8::5', source: 'config' });
  });
});

describe('the discovered address', () => {
  it('is the first IPv4 address of the first NIC that has one (VMware Tools or guestinfo), else none', () => {
    expect(discoveredAddress(undefined)).toBeUndefined();
    expect(discoveredAddress([{ mac: 'a', addresses: [], source: 'tools' }])).toBeUndefined();
    expect(
      discoveredAddress([
        { mac: 'a', addresses: [], source: 'tools' },
        { mac: 'b', addresses: ['2001:db8::22/64', '198.51.100.22/24'], source: 'tools' },
        { mac: 'c', addresses: ['203.0.113.22/24'], source: 'tools' },
      ]),
    ).toBe('198.51.100.22/24');
    expect(discoveredAddress([{ mac: 'a', addresses: ['2001:db8::5'], source: 'extraConfig' }])).toBe('2001:db8::5');
  });
});

describe('interfaceChecks: the VMware MACs and address on the guest', () => {
  it('passes when every VMware MAC is present (any case) and the address is on one of those NICs', () => {
    const upper = GUEST.map((i) => ({ ...i, mac: i.mac?.toUpperCase() }));
    expect(interfaceChecks(upper, MACS, { address: '203.0.113.22', source: 'config' }, 5)).toEqual([
      { check: 'macs', result: 'passed', at: 5, detail: '00:50:56:01:00:02, 00:50:56:01:00:03 present' },
      { check: 'address', result: 'passed', at: 5, detail: '203.0.113.22 on ens19 (00:50:56:01:00:03)' },
    ]);
  });

  it('fails naming each missing MAC', () => {
    const [macs] = interfaceChecks(GUEST.slice(0, 2), MACS, undefined, 1);
    expect(macs).toMatchObject({ result: 'failed', detail: 'no interface in the guest has 00:50:56:01:00:03' });
  });

  it('fails the address when it sits only on an interface without a VMware MAC (or nowhere)', () => {
    const elsewhere: GuestInterface[] = [
      { name: 'ens192', mac: '00:50:56:01:00:04', addresses: [] },
      { name: 'dummy0', mac: '0a:00:00:00:00:01', addresses: ['198.51.100.23/24'] },
    ];
    expect(
      interfaceChecks(elsewhere, ['00:50:56:01:00:04'], { address: '198.51.100.23', source: 'discovery' }, 1)[1],
    ).toEqual({
      check: 'address',
      result: 'failed',
      at: 1,
      detail: '198.51.100.23 (discovery) is on no interface with a VMware MAC',
    });
  });

  it('skips the address check (not passes it) when no address is expected', () => {
    expect(interfaceChecks(GUEST, MACS, undefined, 1)[1]).toMatchObject({ check: 'address', result: 'skipped' });
  });

  it('probes the expected address, else the first IPv4 address on a VMware NIC', () => {
    expect(probeAddress(GUEST, MACS, { address: '203.0.113.22', source: 'config' })).toBe('203.0.113.22');
    expect(probeAddress(GUEST, MACS, undefined)).toBe('198.51.100.22');
    expect(
      probeAddress([{ name: 'ens192', mac: MACS[0], addresses: ['fe80::1/64'] }], MACS, undefined),
    ).toBeUndefined();
  });

  it('describes the interfaces for a person, one per entry', () => {
    expect(
      describeInterfaces([
        { name: 'ens18', mac: '00:50:56:01:00:04', addresses: [] },
        { name: 'lo', addresses: ['127.0.0.1/8'] },
      ]),
    ).toBe('ens18 00:50:56:01:00:04 (no address); lo (no MAC) 127.0.0.1/8');
    expect(describeInterfaces([])).toBe('the guest reported no interfaces');
  });
});

describe('verdict', () => {
  it('is verified when nothing failed and the guest itself answered; lastPassedAt is the latest pass', () => {
    expect(
      verdict([
        check('qemu-running', 'passed', 10),
        check('agent-ping', 'passed', 30),
        check('address', 'skipped', 40),
        check('probe', 'passed', 35),
      ]),
    ).toEqual({
      verified: true,
      lastPassedAt: 35,
    });
  });

  it('lists every failed check as the reason', () => {
    expect(
      verdict([check('qemu-running', 'passed', 1), check('macs', 'failed', 2), check('address', 'failed', 2)]),
    ).toEqual({
      verified: false,
      reason: 'macs: macs; address: address',
      lastPassedAt: 1,
    });
  });

  it('does not call QEMU running alone verified: the agent or a probe must have answered', () => {
    const v = verdict([
      check('qemu-running', 'passed', 1),
      check('agent-ping', 'skipped', 1),
      check('macs', 'skipped', 1),
    ]);
    expect(v.verified).toBe(false);
    expect(v.reason).toMatch(/nothing proved the guest is up/);
    expect(verdict([]).verified).toBe(false);
  });
});

describe('downtime and the status line', () => {
  it('counts from the start of the VMware shutdown to the last check passed, to a tenth of a second', () => {
    expect(downtimeSeconds(1_000, 43_460)).toBe(42.5);
    expect(downtimeSeconds(undefined, 5)).toBeUndefined();
    expect(downtimeSeconds(5, undefined)).toBeUndefined();
    expect(downtimeSeconds(10, 5)).toBeUndefined();
  });

  it('says "not verified (left stopped)" for a VM ferry did not start, never "verified"', () => {
    expect(describeVerification({ state: 'not-verified-left-stopped', checks: [] })).toBe(
      'not verified (left stopped)',
    );
    expect(describeVerification({ state: 'verified', checks: [], bootToAgentSeconds: 9, downtimeSeconds: 61.2 })).toBe(
      'verified (boot-to-agent 9 s, downtime 61.2 s)',
    );
    expect(describeVerification({ state: 'failed', checks: [] })).toBe('failed');
  });

  it('defaults settings a run started before verification existed does not carry', () => {
    expect(verifySettingsOf({})).toEqual(DEFAULT_VERIFY);
    expect(verifySettingsOf({ verify: { ...DEFAULT_VERIFY, onFailure: 'rollback' } }).onFailure).toBe('rollback');
  });
});

describe('guestChecked: which started VMs have their guests checked', () => {
  const on = { enabled: true, skip: ['mig-web*', 'appliance?'] };

  it('checks a VM that verification covers', () => {
    expect(guestChecked('mig-app01', on)).toBe('check');
    expect(guestChecked('appliance10', on)).toBe('check');
  });

  it('skips the VMs migration.verify.skip names, by glob, and says so', () => {
    expect(guestChecked('mig-web01', on)).toEqual({ state: 'not-verified-skipped', checks: [] });
    expect(guestChecked('appliance1', on)).toEqual({ state: 'not-verified-skipped', checks: [] });
    expect(describeVerification({ state: 'not-verified-skipped', checks: [] })).toBe(
      'not verified (in migration.verify.skip)',
    );
  });

  it('checks nothing when verification is off, skip list or not', () => {
    expect(guestChecked('mig-app01', { enabled: false, skip: [] })).toEqual({
      state: 'not-verified-disabled',
      checks: [],
    });
    expect(guestChecked('mig-web01', { enabled: false, skip: ['mig-web*'] })).toEqual({
      state: 'not-verified-disabled',
      checks: [],
    });
  });

  it('defaults to skipping nothing, and a run started before skip existed skips nothing', () => {
    expect(DEFAULT_VERIFY.skip).toEqual([]);
    expect(guestChecked('anything', verifySettingsOf({ verify: { enabled: true } }))).toBe('check');
  });
});

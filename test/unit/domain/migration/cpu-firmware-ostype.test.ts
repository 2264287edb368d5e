import { cpuTopology, firmwareSettings, osTypeFor } from '../../../../src/domain/migration';

describe('cpuTopology', () => {
  it.each([
    [4, 2, { sockets: 2, cores: 2 }],
    [4, 4, { sockets: 1, cores: 4 }],
    [4, 1, { sockets: 4, cores: 1 }],
    [1, 1, { sockets: 1, cores: 1 }],
    [6, 4, { sockets: 2, cores: 4, vcpus: 6 }],
    [3, 2, { sockets: 2, cores: 2, vcpus: 3 }],
    [2, 0, { sockets: 2, cores: 1 }],
    [2, 8, { sockets: 1, cores: 2 }],
    [64, 16, { sockets: 4, cores: 16 }],
  ])('numCPU %i with %i cores per socket → %j', (numCpu, perSocket, expected) => {
    expect(cpuTopology(numCpu, perSocket)).toEqual(expected);
  });

  it.each([0, -1, 1.5, Number.NaN])('refuses numCPU %p', (numCpu) => {
    expect(() => cpuTopology(numCpu, 1)).toThrow(/numCPU must be a whole number/);
  });
});

describe('firmwareSettings', () => {
  it('gives EFI guests OVMF with an EFI disk and pre-enrolled keys off', () => {
    expect(firmwareSettings('efi', 'local-lvm')).toEqual({
      bios: 'ovmf',
      machine: 'q35',
      efidisk: { storage: 'local-lvm', efitype: '4m', preEnrolledKeys: false },
    });
  });

  it('gives BIOS guests SeaBIOS and no EFI disk', () => {
    expect(firmwareSettings('bios', 'local-lvm')).toEqual({ bios: 'seabios', machine: 'q35' });
  });
});

describe('osTypeFor', () => {
  it.each([
    ['windows11_64Guest', 'win11'],
    ['windows12_64Guest', 'win11'],
    ['windows2019srvNext_64Guest', 'win11'],
    ['windows2022srvNext_64Guest', 'win11'],
    ['windows2019srv_64Guest', 'win10'],
    ['windows9_64Guest', 'win10'],
    ['windows9Guest', 'win10'],
    ['windows9Server64Guest', 'win10'],
    ['windows8Server64Guest', 'win8'],
    ['windows8_64Guest', 'win8'],
    ['windows7Server64Guest', 'w2k8'],
    ['windows7_64Guest', 'win7'],
    ['windows7Guest', 'win7'],
    ['winLonghorn64Guest', 'w2k8'],
    ['winVistaGuest', 'wvista'],
    ['winNetEnterprise64Guest', 'w2k3'],
    ['winXPProGuest', 'wxp'],
    ['win2000ServGuest', 'w2k'],
    ['win98Guest', 'other'],
    ['ubuntu64Guest', 'l26'],
    ['debian12_64Guest', 'l26'],
    ['rhel9_64Guest', 'l26'],
    ['centos8_64Guest', 'l26'],
    ['centos64Guest', 'l26'],
    ['oracleLinux9_64Guest', 'l26'],
    ['sles15_64Guest', 'l26'],
    ['amazonlinux3_64Guest', 'l26'],
    ['rockylinux_64Guest', 'l26'],
    ['almalinux_64Guest', 'l26'],
    ['other5xLinux64Guest', 'l26'],
    ['other26xLinuxGuest', 'l26'],
    ['otherLinux64Guest', 'l26'],
    ['vmwarePhoton64Guest', 'l26'],
    ['other24xLinuxGuest', 'l24'],
    ['rhel3Guest', 'l24'],
    ['solaris11_64Guest', 'solaris'],
  ])('%s → %s', (guestId, ostype) => {
    expect(osTypeFor(guestId)).toEqual({ ostype, known: true });
  });

  it.each(['otherGuest', 'freebsd13_64Guest', 'darwin22_64Guest', 'madeUpGuest', ''])(
    'falls back to other for %p and says so',
    (guestId) => {
      expect(osTypeFor(guestId)).toEqual({ ostype: 'other', known: false });
    },
  );
});

/** Proxmox's `ostype` values (qemu-server). */
export type PveOsType =
  | 'other'
  | 'wxp'
  | 'w2k'
  | 'w2k3'
  | 'w2k8'
  | 'wvista'
  | 'win7'
  | 'win8'
  | 'win10'
  | 'win11'
  | 'l24'
  | 'l26'
  | 'solaris';

/**
 * vSphere guestId → Proxmox ostype, first match wins. PVE uses ostype for guest-specific tweaks
 * (Hyper-V enlightenments for Windows, timers), so the Windows generation matters more than the edition.
 */
const RULES: ReadonlyArray<readonly [RegExp, PveOsType]> = [
  // Windows 11 family and Server 2022/2025 (windows2019srvNext = 2022, windows2022srvNext = 2025)
  [/^windows1[12]_64Guest$/, 'win11'],
  [/^windows20(19|22)srvNext_64Guest$/, 'win11'],
  // Windows 10 family and Server 2016/2019
  [/^windows9(_64|Server64)?Guest$/, 'win10'],
  [/^windows2019srv_64Guest$/, 'win10'],
  // Windows 8 / 8.1 / Server 2012 (R2)
  [/^windows8(_64|Server64)?Guest$/, 'win8'],
  // Server 2008 R2 is windows7Server64Guest
  [/^windows7Server64Guest$/, 'w2k8'],
  [/^windows7(_64)?Guest$/, 'win7'],
  [/^winLonghorn(64)?Guest$/, 'w2k8'],
  [/^winVista(64)?Guest$/, 'wvista'],
  [/^winNet\w*Guest$/, 'w2k3'],
  [/^winXP\w*Guest$/, 'wxp'],
  [/^win2000\w*Guest$/, 'w2k'],
  [/^win(31|95|98|Me|NT)Guest$/, 'other'],
  // Linux 2.4 kernels
  [/^other24xLinux(64)?Guest$/, 'l24'],
  [/^(redhat|rhel[2-3]|sles|suse|mandrake|turboLinux|nld9|oes)(_64)?Guest$/, 'l24'],
  // Any other Linux: 2.6+ kernels
  [
    /^(other(26x|3x|4x|5x|6x)?Linux|ubuntu|debian\d+|rhel\d+|centos\d*|oracleLinux\d*|sles\d+|opensuse|fedora|amazonlinux\d*|rockylinux|almalinux|asianux\d+|mandriva|coreos|vmwarePhoton|genericLinux|crxPod\d*|crxSys\d*|otherLinux)(_64|64)?Guest$/,
    'l26',
  ],
  [/^solaris\d+(_64)?Guest$/, 'solaris'],
];

export interface OsTypeMapping {
  ostype: PveOsType;
  /** false when the guestId is not in the table and ferry fell back to `other`. */
  known: boolean;
}

export function osTypeFor(guestId: string): OsTypeMapping {
  for (const [pattern, ostype] of RULES) if (pattern.test(guestId)) return { ostype, known: true };
  return { ostype: 'other', known: false };
}

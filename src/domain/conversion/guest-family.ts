import type { PveOsType } from '../migration/ostype';

/** What a converter treats alike: virt-v2v converts Linux and Windows guests, nothing else. */
export type GuestFamily = 'linux' | 'windows' | 'other';

/** The family of a guest from the ostype its vSphere guestId maps to. */
export function guestFamily(ostype: PveOsType): GuestFamily {
  if (ostype === 'l24' || ostype === 'l26') return 'linux';
  if (ostype === 'other' || ostype === 'solaris') return 'other';
  return 'windows';
}

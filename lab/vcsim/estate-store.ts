import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, realpathSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { escapeXml } from '../../src/vsphere/envelope';
import { guestImage } from '../guest-image/paths';
import { vmwareGuestImage } from '../vmware-guest/paths';
import { toolPath } from '../tools';
import { buildEstate, replaceInTree, STATE_DIR_PLACEHOLDER, type EstateManifest } from './build-estate';

/** Source files whose content decides what the builder makes: a change to any builds the estate anew. */
const BUILDER_SOURCES = ['estate', 'build-estate', 'vm-spec', 'vcsim-gaps'];

function cacheRoot(): string {
  return path.join(process.env.FERRY_CACHE ?? path.join(homedir(), '.cache', 'ferry'), 'vcsim-estates');
}

/**
 * Hash of the builder's sources, the vcsim build it ran on, the guest images (their disks' size is the
 * guest VMs' disk capacity) and the number of scale VMs.
 */
export function estateKey(extraVms: number): string {
  const hash = createHash('sha256');
  const ext = path.extname(__filename);
  for (const name of BUILDER_SOURCES) hash.update(readFileSync(path.join(__dirname, `${name}${ext}`)));
  hash.update(realpathSync(toolPath('vcsim')));
  hash.update(`guestImage=${guestImage().manifest.key} vmwareGuest=${vmwareGuestImage().manifest.key}`);
  hash.update(`extraVms=${extraVms}`);
  return hash.digest('hex').slice(0, 16);
}

export interface SavedEstate {
  /** Folder with `objects/` (for `vcsim -load`, after placing) and `manifest.json`. */
  dir: string;
  manifest: EstateManifest;
  /** Built now (else taken from the cache). */
  built: boolean;
}

/**
 * The saved estate for `extraVms` scale VMs, from the cache or built once (into a temporary folder
 * renamed into place, so concurrent runs never see half an estate).
 */
export async function savedEstate(extraVms: number, log?: (line: string) => void): Promise<SavedEstate> {
  const dir = path.join(cacheRoot(), `${estateKey(extraVms)}-${extraVms}`);
  const manifestFile = path.join(dir, 'manifest.json');
  if (existsSync(manifestFile))
    return { dir, manifest: JSON.parse(readFileSync(manifestFile, 'utf8')) as EstateManifest, built: false };
  const partial = `${dir}.partial-${process.pid}-${Date.now()}`;
  mkdirSync(partial, { recursive: true });
  try {
    const manifest = await buildEstate(partial, { extraVms, log });
    try {
      renameSync(partial, dir);
    } catch (err) {
      if (!existsSync(manifestFile)) throw err; // someone else finished first: theirs is the same estate
    }
    return { dir, manifest, built: true };
  } finally {
    rmSync(partial, { recursive: true, force: true });
  }
}

/** Copies the saved objects for `vcsim -load`, with datastore folders pointing into `stateDir`. */
export function placeEstate(saved: SavedEstate, stateDir: string): string {
  const target = path.join(stateDir, 'vcsim', 'estate');
  rmSync(target, { recursive: true, force: true });
  mkdirSync(path.dirname(target), { recursive: true });
  cpSync(path.join(saved.dir, 'objects'), target, { recursive: true });
  replaceInTree(target, STATE_DIR_PLACEHOLDER, escapeXml(path.resolve(stateDir)));
  for (const dir of Object.values(saved.manifest.datastoreDirs))
    mkdirSync(path.join(stateDir, dir), { recursive: true });
  return target;
}

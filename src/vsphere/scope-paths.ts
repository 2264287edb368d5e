import { FerryError } from '../errors';

/** A discovery scope that cannot be resolved: exit code 1, the message says what to give instead. */
export class ScopeError extends FerryError {
  constructor(message: string) {
    super(message, 'invalid');
  }
}

/** The inventory paths a scope names: its datacenter, and the folders and clusters inside it. */
export interface ScopePaths {
  /** `/DC0`, `/Europe/DC-AMS`. */
  datacenter: string;
  /** `/DC0/vm/apps`. */
  folders: string[];
  /** `/DC0/host/DC0_C0`. */
  clusters: string[];
}

/** The container below a datacenter that holds each kind: VMs in `vm`, hosts and clusters in `host`. */
const CONTAINER = { folder: 'vm', cluster: 'host' } as const;
type Kind = keyof typeof CONTAINER;

const trimmed = (p: string) => p.replace(/\/+$/, '');

/**
 * The inventory paths of a discovery scope, every one as `plan`, `migrate` and vCenter itself write it
 * (`/DC0/vm/apps`); undefined for the whole vCenter. A folder or cluster may be given as that path, or
 * relative to the datacenter's VM (host) folder (`apps`, as vsphere.discovery.folders has it); with
 * only inventory paths the datacenter is the one they are in.
 */
export function scopePaths(scope: {
  datacenter?: string;
  folders?: readonly string[];
  clusters?: readonly string[];
}): ScopePaths | undefined {
  const given = [
    ...(scope.folders ?? []).map((path) => ({ kind: 'folder' as Kind, path })),
    ...(scope.clusters ?? []).map((path) => ({ kind: 'cluster' as Kind, path })),
  ];
  const datacenter = scope.datacenter ? datacenterPath(scope.datacenter) : datacenterOf(given);
  if (!datacenter) return undefined;
  const resolve = (kind: Kind) =>
    given.filter((g) => g.kind === kind).map((g) => insideDatacenter(datacenter, kind, g.path));
  return { datacenter, folders: resolve('folder'), clusters: resolve('cluster') };
}

function datacenterPath(name: string): string {
  return trimmed(name.startsWith('/') ? name : `/${name}`);
}

/** The datacenter the first inventory path is in, when no datacenter was given. */
function datacenterOf(given: ReadonlyArray<{ kind: Kind; path: string }>): string | undefined {
  if (given.length === 0) return undefined;
  const relative = given.find((g) => !g.path.startsWith('/'));
  if (relative)
    throw new ScopeError(
      `a folder or cluster scope needs the datacenter it is in (--datacenter), or give it as an inventory path: ${relative.kind} ${relative.path} is relative (e.g. /DC0/${CONTAINER[relative.kind]}/${relative.path})`,
    );
  const { kind, path } = given[0]!;
  const container = CONTAINER[kind];
  const found = new RegExp(`^(/.+?)/${container}(/.*)?$`).exec(trimmed(path));
  if (!found)
    throw new ScopeError(
      `${kind} ${path} is not an inventory path inside a datacenter: expected /<datacenter>/${container}/…`,
    );
  return found[1]!;
}

function insideDatacenter(datacenter: string, kind: Kind, path: string): string {
  const container = `${datacenter}/${CONTAINER[kind]}`;
  if (!path.startsWith('/')) return `${container}/${path.replace(/^\/+|\/+$/g, '')}`;
  const full = trimmed(path);
  if (full === container || full.startsWith(`${container}/`)) return full;
  throw new ScopeError(
    `${kind} ${path} is not in datacenter ${datacenter}: its ${kind === 'folder' ? 'VM folders' : 'clusters and hosts'} are under ${container}/`,
  );
}

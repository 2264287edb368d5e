import {
  placementKey,
  placementVmOf,
  placeSpecs,
  specPlacement,
  validateSpec,
  type ProvisionSpec,
} from '../../../../src/domain/provisioning';
import { GiB, local, node } from '../placement/fixtures';

function spec(input: Record<string, unknown>): ProvisionSpec {
  const result = validateSpec({
    name: 'web1',
    cores: 2,
    memoryMiB: 4096,
    disks: [{ slot: 'scsi0', storage: 'local-lvm', sizeGiB: 20 }],
    ...input,
  });
  if (!result.ok) throw new Error(result.problems.join('\n'));
  return result.spec;
}

const nodes = [
  node('pve1', { memoryBytes: 16 * GiB, committedBytes: 15 * GiB }),
  node('pve2', { memoryBytes: 32 * GiB }),
];
const storages = [local('local-lvm', { pve1: 100, pve2: 180 })];

describe('provisioning placement of specs', () => {
  it('keys a spec by its NetBox id, else its name, and sizes it in bytes', () => {
    expect(placementKey({ name: 'web1', netboxId: 42 })).toBe('netbox-42');
    expect(placementKey({ name: 'web1' })).toBe('spec-web1');
    expect(placementVmOf(spec({ sockets: 2, node: 'pve1' }))).toEqual({
      key: 'spec-web1',
      name: 'web1',
      node: 'pve1',
      memoryBytes: 4 * GiB,
      cpus: 4,
      disks: [{ slot: 'scsi0', storage: 'local-lvm', sizeBytes: 20 * GiB }],
    });
  });

  it('places a spec without a node where memory and disks fit', () => {
    const s = spec({});
    expect(specPlacement(placeSpecs({ nodes, storages }, [s]), s)).toEqual({ ok: true, node: 'pve2' });
  });

  it('keeps a named node whatever its memory, but checks its storage for the disks', () => {
    const fits = spec({ node: 'pve1' });
    expect(specPlacement(placeSpecs({ nodes, storages }, [fits]), fits)).toEqual({ ok: true, node: 'pve1' });
    const tooBig = spec({ node: 'pve1', disks: [{ slot: 'scsi0', storage: 'local-lvm', sizeGiB: 120 }] });
    const outcome = specPlacement(placeSpecs({ nodes, storages }, [tooBig]), tooBig);
    expect(outcome).toEqual({
      ok: false,
      reason: expect.stringContaining('local-lvm on pve1: needs 120 GiB, 100 GiB free'),
    });
  });

  it('refuses a spec too big for every node, with the numbers', () => {
    const s = spec({ disks: [{ slot: 'scsi0', storage: 'local-lvm', sizeGiB: 412 }] });
    const outcome = specPlacement(placeSpecs({ nodes, storages }, [s]), s);
    expect(outcome.ok).toBe(false);
    expect(!outcome.ok && outcome.reason).toContain('local-lvm on pve2: needs 412 GiB, 180 GiB free');
  });

  it("leaves a named node's missing storage to the preflight (which lists every problem); without a node it is refused", () => {
    const named = spec({ node: 'pve1', disks: [{ slot: 'scsi0', storage: 'ceph', sizeGiB: 20 }] });
    expect(specPlacement(placeSpecs({ nodes, storages }, [named]), named)).toEqual({ ok: true, node: 'pve1' });
    const unnamed = spec({ disks: [{ slot: 'scsi0', storage: 'ceph', sizeGiB: 20 }] });
    expect(specPlacement(placeSpecs({ nodes, storages }, [unnamed]), unnamed)).toMatchObject({
      ok: false,
      reason: expect.stringContaining('ceph'),
    });
  });
});

import { describePlacement, renderPlacement } from '../../cli/render-placement';

const GiB = 1024 ** 3;
const from = { node: 'pve1', disks: [{ label: 'Hard disk 1', storage: 'local-lvm' }] };
const to = {
  node: 'pve3',
  disks: [{ label: 'Hard disk 1', storage: 'nfs-images' }],
  memory: { committedAfterBytes: 24 * GiB, limitBytes: 128 * GiB, memoryBytes: 128 * GiB },
};

describe('the placement as status and the approval prompt print it', () => {
  it('names the node, each disk with its storage, and the memory committed on the node after', () => {
    expect(describePlacement(to)).toBe(
      'pve3; Hard disk 1 → nfs-images; memory committed on pve3 after: 24 GiB of 128 GiB',
    );
    expect(describePlacement(from)).toBe('pve1; Hard disk 1 → local-lvm');
  });

  it('lists each ferry place with who, why and where from', () => {
    const moves = [{ by: 'alice', reason: 'balance', at: 0, from, to, shellMoved: true }];
    expect(renderPlacement({ placement: to, placementMoves: moves })).toEqual([
      '  placement: pve3; Hard disk 1 → nfs-images; memory committed on pve3 after: 24 GiB of 128 GiB',
      '  placed by alice: balance (pve1 → pve3, shell re-created)',
    ]);
    expect(renderPlacement({ stage: 'validate' })).toEqual([]);
  });
});

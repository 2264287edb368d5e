import { CoalescedReads } from '../../src/netbox/coalesced-reads';

/** A batch reader that answers when told to, recording each batch it was asked for. */
function controlledReader() {
  const batches: number[][] = [];
  const answers: Array<{ keys: number[]; answer: (skip?: number[]) => void; fail: (e: Error) => void }> = [];
  const readBatch = (keys: number[]) =>
    new Promise<Map<number, string>>((resolve, reject) => {
      batches.push(keys);
      answers.push({
        keys,
        answer: (skip = []) => resolve(new Map(keys.filter((k) => !skip.includes(k)).map((k) => [k, `vm-${k}`]))),
        fail: reject,
      });
    });
  return { batches, answers, readBatch };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('CoalescedReads', () => {
  it('sends a lone read at once, and the reads asked while it is out as one batch after it', async () => {
    const r = controlledReader();
    const reads = new CoalescedReads(r.readBatch, (k) => new Error(`no ${k}`));
    const first = reads.read(1);
    await tick();
    expect(r.batches).toEqual([[1]]);
    const later = [reads.read(2), reads.read(3), reads.read(2)];
    await tick();
    expect(r.batches).toEqual([[1]]); // nothing more while the first is out
    r.answers[0]!.answer();
    await expect(first).resolves.toBe('vm-1');
    await tick();
    expect(r.batches).toEqual([[1], [2, 3]]); // one batch, each key once
    r.answers[1]!.answer();
    await expect(Promise.all(later)).resolves.toEqual(['vm-2', 'vm-3', 'vm-2']);
  });

  it('splits what waits into batches of at most maxBatch keys', async () => {
    const r = controlledReader();
    const reads = new CoalescedReads(r.readBatch, (k) => new Error(`no ${k}`), 2);
    const all = [1, 2, 3, 4, 5, 6].map((k) => reads.read(k));
    await tick();
    for (let i = 0; i < 4; i++) {
      r.answers[i]!.answer();
      await tick();
      await tick();
    }
    // 1 left alone, before the others were asked
    expect(r.batches).toEqual([[1], [2, 3], [4, 5], [6]]);
    await expect(Promise.all(all)).resolves.toEqual(['vm-1', 'vm-2', 'vm-3', 'vm-4', 'vm-5', 'vm-6']);
  });

  it("rejects a key the batch did not return with the missing error, and the others' reads still resolve", async () => {
    const r = controlledReader();
    const reads = new CoalescedReads(r.readBatch, (k) => new Error(`NetBox has no VM ${k}`));
    const out = reads.read(6);
    const [a, b] = [reads.read(7), reads.read(8)];
    await tick();
    r.answers[0]!.answer();
    await expect(out).resolves.toBe('vm-6');
    await tick();
    r.answers[1]!.answer([8]);
    await expect(a).resolves.toBe('vm-7');
    await expect(b).rejects.toThrow('NetBox has no VM 8');
  });

  it('rejects every caller of a failed batch with its error, and reads after it go out again', async () => {
    const r = controlledReader();
    const reads = new CoalescedReads(r.readBatch, (k) => new Error(`no ${k}`));
    const out = reads.read(9);
    const [a, b] = [reads.read(1), reads.read(2)];
    await tick();
    r.answers[0]!.answer();
    await tick();
    r.answers[1]!.fail(new Error('NetBox is unreachable'));
    await expect(a).rejects.toThrow('NetBox is unreachable');
    await expect(b).rejects.toThrow('NetBox is unreachable');
    await expect(out).resolves.toBe('vm-9');
    const again = reads.read(1);
    await tick();
    expect(r.batches).toEqual([[9], [1, 2], [1]]);
    r.answers[2]!.answer();
    await expect(again).resolves.toBe('vm-1');
  });
});

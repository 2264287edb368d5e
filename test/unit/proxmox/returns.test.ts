import { checkReturns, type ReturnsSchema } from '../../../lab/proxmox-sim/schema/returns';
import { loadSubset } from '../../../lab/proxmox-sim/schema/subset';

/** The checker of answers against the official schema's `returns`, used by the simulator's endpoint tests. */
describe('checkReturns', () => {
  const returns = (template: string) => loadSubset('9.1').endpoints[template]!.GET!.returns as ReturnsSchema;

  it('accepts an answer of the promised shape (booleans as 0/1, optional keys left out)', () => {
    expect(
      checkReturns(returns('/nodes/{node}/storage/{storage}/status'), {
        type: 'dir',
        content: 'images',
        shared: 0,
        total: 10,
      }),
    ).toEqual([]);
  });

  it('names each missing key, wrong type and enum miss with its path', () => {
    expect(
      checkReturns(returns('/nodes/{node}/storage/{storage}/status'), { type: 'dir', total: '12', shared: 2 }),
    ).toEqual(['content is missing', 'shared is 2, not a boolean (0/1)', 'total is "12", not an integer']);
    expect(
      checkReturns(returns('/nodes/{node}/lxc'), [{ vmid: 900, status: 'paused' }, { status: 'running' }]),
    ).toEqual(['[0].status is "paused", not one of stopped, running', '[1].vmid is missing']);
    expect(checkReturns(returns('/nodes/{node}/lxc'), { vmid: 900 })).toEqual(['(answer) is not an array']);
  });

  it('refuses keys the schema closes with additionalProperties 0', () => {
    expect(
      checkReturns({ type: 'object', additionalProperties: 0, properties: { a: { type: 'integer' } } }, { a: 1, b: 2 }),
    ).toEqual(['b is not in the schema']);
  });
});

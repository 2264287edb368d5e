import { compareCodeUnits } from '../../../src/domain/order';
import { assessInventory } from '../../../src/domain/migration';
import { rules, vm } from './migration/fixtures';

describe('compareCodeUnits', () => {
  it('orders by UTF-16 code units, whatever the locale would say', () => {
    const names = ['ärger', 'Zulu', 'été', 'alpha', 'Émile', 'beta', 'emu'];
    // A locale-aware sort would put 'ärger' next to 'alpha' and 'été' next to 'emu'.
    expect([...names].sort(compareCodeUnits)).toEqual(['Zulu', 'alpha', 'beta', 'emu', 'Émile', 'ärger', 'été']);
  });

  it('agrees with the default sort, also across surrogate pairs', () => {
    const names = ['\uFB01le', '😀smile', 'ﬀ', 'z', 'Ω', 'ω', ''];
    expect([...names].sort(compareCodeUnits)).toEqual([...names].sort());
    expect(compareCodeUnits('😀', '\uFB01')).toBeLessThan(0); // 0xD83D before 0xFB01
    expect(compareCodeUnits('same', 'same')).toBe(0);
  });

  it('fixes the order in which the assessment lists VMs', () => {
    const vms = ['ärger', 'Zulu', 'alpha'].map((name, i) => vm({ moid: `vm-${60 + i}`, name }));
    const twins = [vm({ moid: 'vm-71', name: 'äq' }), vm({ moid: 'vm-70', name: 'äq' })];
    const result = assessInventory({ portgroups: [], vms: [...vms, ...twins] }, rules());
    expect(result.vms.map((v) => `${v.name}/${v.moid}`)).toEqual([
      'Zulu/vm-61',
      'alpha/vm-62',
      'äq/vm-70',
      'äq/vm-71',
      'ärger/vm-60',
    ]);
  });
});

import { RULES, dimmGridSizes, hotplugFeatures, onDimmGrid } from '../../../../src/domain/change';
import { configWith, only, planFor } from './fixtures';

const hotMemory = { hotplug: 'network,disk,usb,memory', numa: '1' };

describe('hotplug features (PVE/QemuServer.pm parse_hotplug_features)', () => {
  it('absent and `1` mean network,disk,usb; `0` means none; a list means itself', () => {
    expect([...hotplugFeatures(undefined)]).toEqual(['network', 'disk', 'usb']);
    expect([...hotplugFeatures('1')]).toEqual(['network', 'disk', 'usb']);
    expect([...hotplugFeatures('0')]).toEqual([]);
    expect([...hotplugFeatures('cpu,memory')]).toEqual(['cpu', 'memory']);
  });

  it('memory hotplug sizes: 1024 MiB, then 32 DIMMs of 512 MiB, then 1 GiB ones (PVE/QemuServer/Memory.pm foreach_dimm)', () => {
    const grid = dimmGridSizes();
    expect(grid.slice(0, 4)).toEqual([1024, 1536, 2048, 2560]);
    expect(grid[32]).toBe(1024 + 32 * 512);
    expect(grid[33]).toBe(1024 + 32 * 512 + 1024);
    expect(onDimmGrid(4096)).toBe(true);
    expect(onDimmGrid(3000)).toBe(false);
    expect(onDimmGrid(17_408 + 512)).toBe(false);
  });
});

describe('memory (PVE/QemuServer.pm vmconfig_hotplug_pending, PVE/QemuServer/Memory.pm)', () => {
  it('without memory in hotplug it waits for the restart (vmconfig_hotplug_pending: not hot-pluggable)', () => {
    for (const hotplug of [undefined, '1', '0', 'network,disk,cpu']) {
      const change = only(planFor({ memoryMB: 4096 }, { config: configWith({ hotplug }) }), 'memory');
      expect(change).toMatchObject({
        class: 'at-restart',
        rule: RULES.hotplugPending,
        waitsForRestart: true,
        from: '2048',
        to: '4096',
      });
      expect(change.operation).toEqual({ op: 'set-memory', memoryMiB: 4096 });
    }
  });

  it('memory in hotplug with NUMA: more memory is hot-added live (Memory.pm qemu_memory_hotplug)', () => {
    const change = only(planFor({ memoryMB: 4096 }, { config: configWith(hotMemory) }), 'memory');
    expect(change).toMatchObject({ class: 'live', rule: RULES.memoryHotplug, waitsForRestart: false });
  });

  it('memory in hotplug without NUMA is no memory hotplug: at the restart (Memory.pm config: "NUMA needs to be enabled")', () => {
    const change = only(
      planFor({ memoryMB: 4096 }, { config: configWith({ hotplug: 'network,disk,memory' }) }),
      'memory',
    );
    expect(change).toMatchObject({ class: 'at-restart', rule: RULES.memoryConfig });
  });

  it('less memory with memory hotplug needs a stop: DIMMs are unplugged one by one and may stay (Memory.pm qemu_memory_hotplug)', () => {
    const config = configWith({ ...hotMemory, memory: '4096' });
    expect(only(planFor({ memoryMB: 2048 }, { config }), 'memory')).toMatchObject({
      class: 'needs-stop',
      rule: RULES.memoryHotplug,
    });
    expect(only(planFor({ memoryMB: 2048 }, { config: configWith({ memory: '4096' }) }), 'memory')).toMatchObject({
      class: 'at-restart',
    });
  });

  it('refuses a size off the DIMM grid or below 1024 MiB when memory hotplug is on (Memory.pm foreach_dimm, qemu_memory_hotplug)', () => {
    const offGrid = only(planFor({ memoryMB: 3000 }, { config: configWith(hotMemory) }), 'memory');
    expect(offGrid).toMatchObject({ class: 'refused', rule: RULES.dimms });
    expect(offGrid.why).toContain('nearest: 2560 or 3072 MiB');
    expect(offGrid.operation).toBeUndefined();
    const low = only(planFor({ memoryMB: 768 }, { config: configWith(hotMemory) }), 'memory');
    expect(low).toMatchObject({ class: 'refused', rule: RULES.memoryHotplug });
    // Without memory hotplug any size goes (at the restart).
    expect(only(planFor({ memoryMB: 3000 }), 'memory').class).toBe('at-restart');
    // Memory hotplug on now and pending off: a hot-add now would still stop at a grid size.
    const leaving = only(
      planFor(
        { memoryMB: 3000 },
        { config: configWith(hotMemory), pending: [{ key: 'hotplug', value: 'network,disk' }] },
      ),
      'memory',
    );
    expect(leaving).toMatchObject({ class: 'refused', rule: RULES.dimms });
  });

  it('refuses memory below the balloon target (PVE/API2/Qemu.pm update_vm_api: "balloon value too large")', () => {
    const change = only(planFor({ memoryMB: 1024 }, { config: configWith({ balloon: '1536' }) }), 'memory');
    expect(change).toMatchObject({ class: 'refused', rule: RULES.updateVm });
    expect(only(planFor({ memoryMB: 1024 }, { config: configWith({ balloon: '0' }) }), 'memory').class).toBe(
      'at-restart',
    );
  });

  it('a stopped VM takes any memory change at once (vmconfig_apply_pending)', () => {
    const change = only(planFor({ memoryMB: 1024 }, { power: 'stopped', config: configWith(hotMemory) }), 'memory');
    expect(change).toMatchObject({ class: 'live', rule: RULES.applyPending, waitsForRestart: false });
  });
});

describe('vCPUs (PVE/QemuServer.pm qemu_cpu_hotplug, vmconfig_hotplug_pending)', () => {
  it('with cpu hotplug, more vCPUs within sockets × cores are hot-plugged through vcpus', () => {
    const change = only(
      planFor({ vcpus: 3 }, { config: configWith({ hotplug: 'network,disk,cpu', cores: '4', vcpus: '2' }) }),
      'vcpus',
    );
    expect(change).toMatchObject({
      class: 'live',
      rule: RULES.cpuHotplug,
      from: '2',
      to: '3',
      operation: { op: 'set-cpu', vcpus: 3 },
    });
  });

  it('fewer vCPUs with cpu hotplug need a stop (unplugged one by one; "error unplugging cpu")', () => {
    const change = only(
      planFor({ vcpus: 1 }, { config: configWith({ hotplug: 'cpu', cores: '4', vcpus: '2' }) }),
      'vcpus',
    );
    expect(change).toMatchObject({ class: 'needs-stop', operation: { op: 'set-cpu', vcpus: 1 } });
  });

  it('more vCPUs than sockets × cores change cores, at the restart ("you can’t add more vcpus than maxcpus")', () => {
    const change = only(planFor({ vcpus: 4 }, { config: configWith({ hotplug: 'network,disk,cpu' }) }), 'vcpus');
    expect(change).toMatchObject({ class: 'at-restart', operation: { op: 'set-cpu', cores: 4 } });
    // vcpus set: writing it would hot-plug up to the old maximum first, so the VM must be stopped.
    const withVcpus = only(planFor({ vcpus: 4 }, { config: configWith({ hotplug: 'cpu', vcpus: '2' }) }), 'vcpus');
    expect(withVcpus).toMatchObject({ class: 'needs-stop', operation: { op: 'set-cpu', cores: 4, deleteVcpus: true } });
  });

  it('without cpu hotplug, cores and vcpus change at the restart; sockets are kept and vcpus trims an odd count', () => {
    expect(only(planFor({ vcpus: 4 }), 'vcpus')).toMatchObject({
      class: 'at-restart',
      rule: RULES.hotplugPending,
      operation: { op: 'set-cpu', cores: 4 },
    });
    const twoSockets = only(planFor({ vcpus: 3 }, { config: configWith({ sockets: '2', cores: '1' }) }), 'vcpus');
    expect(twoSockets.operation).toEqual({ op: 'set-cpu', cores: 2, vcpus: 3 });
    expect(twoSockets.from).toBe('2');
  });

  it('NetBox’s fractional vCPUs count up, as provisioning builds them (1.5 → 2: nothing to do)', () => {
    expect(planFor({ vcpus: 1.5 }).changes).toEqual([]);
  });

  it('a stopped VM takes the topology at once', () => {
    expect(only(planFor({ vcpus: 6 }, { power: 'stopped' }), 'vcpus')).toMatchObject({
      class: 'live',
      operation: { op: 'set-cpu', cores: 6 },
    });
  });
});

import { checkHotplugFeatures, isFastPlug, parseHotplugFeatures } from '../../../lab/proxmox-sim/hotplug-features';
import { cpuDevice, qemuCommandLine } from '../../../lab/proxmox-sim/qemu/command-line';
import { dimmsUpTo, maxMemoryMiB, memoryCommandLine, planMemoryHotplug } from '../../../lab/proxmox-sim/qemu/memory';

/**
 * The simulator's pure hotplug rules against qemu-server's own: PVE/QemuServer.pm (parse_hotplug_features,
 * $fast_plug_option, config_to_command's -smp, print_cpu_device in QemuServer/CPUConfig.pm) and
 * PVE/QemuServer/Memory.pm (config, foreach_dimm, get_max_mem, qemu_memory_hotplug), with the expected
 * command lines from qemu-server's test fixtures (src/test/cfg2cmd/memory-hotplug.conf{,.cmd}).
 */
describe('hotplug rules as qemu-server has them', () => {
  it('parse_hotplug_features: unset and `1` are network,disk,usb; `0` is none; an unknown feature is refused', () => {
    const on = (v?: string) =>
      Object.entries(parseHotplugFeatures(v))
        .filter(([, x]) => x)
        .map(([k]) => k);
    expect(on(undefined)).toEqual(['network', 'disk', 'usb']);
    expect(on('1')).toEqual(['network', 'disk', 'usb']);
    expect(on('0')).toEqual([]);
    expect(on('memory,cpu')).toEqual(['cpu', 'memory']);
    expect(on('network;disk cloudinit')).toEqual(['network', 'disk', 'cloudinit']);
    expect(checkHotplugFeatures('disk,ram')).toBe("invalid hotplug feature 'ram'");
    expect(checkHotplugFeatures('disk,memory')).toBeUndefined();
  });

  it('$fast_plug_option: meta options and the cloud-init settings change at once, the hardware does not', () => {
    for (const key of ['name', 'description', 'tags', 'onboot', 'protection', 'startup', 'lock', 'hookscript'])
      expect([key, isFastPlug(key)]).toEqual([key, true]);
    for (const key of ['ciuser', 'cipassword', 'sshkeys', 'nameserver', 'searchdomain', 'ipconfig3', 'citype'])
      expect([key, isFastPlug(key)]).toEqual([key, true]);
    for (const key of ['memory', 'cores', 'sockets', 'cpu', 'numa', 'boot', 'machine', 'net0', 'scsi0', 'agent'])
      expect([key, isFastPlug(key)]).toEqual([key, false]);
  });

  it('Memory.pm config: the cfg2cmd memory-hotplug fixture (2 sockets × 2 cores, 66560 MiB, 46 host bits)', () => {
    const config = { cores: '2', sockets: '2', memory: '66560', numa: '1', hotplug: 'memory' };
    const argv = memoryCommandLine(config, true, 46);
    expect(argv.slice(0, 10)).toEqual([
      '-m',
      'size=1024,slots=255,maxmem=524288M',
      '-object',
      'memory-backend-ram,id=ram-node0,size=512M',
      '-numa',
      'node,nodeid=0,cpus=0-1,memdev=ram-node0',
      '-object',
      'memory-backend-ram,id=ram-node1,size=512M',
      '-numa',
      'node,nodeid=1,cpus=2-3,memdev=ram-node1',
    ]);
    const dimms = argv.filter((a) => a.startsWith('pc-dimm'));
    expect(dimms).toHaveLength(72);
    expect(dimms[0]).toBe('pc-dimm,id=dimm0,memdev=mem-dimm0,node=0');
    expect(dimms[31]).toBe('pc-dimm,id=dimm31,memdev=mem-dimm31,node=1');
    expect(argv).toContain('memory-backend-ram,id=mem-dimm31,size=512M');
    expect(argv).toContain('memory-backend-ram,id=mem-dimm32,size=1024M');
    expect(argv).toContain('memory-backend-ram,id=mem-dimm63,size=1024M');
    expect(argv).toContain('memory-backend-ram,id=mem-dimm64,size=2048M');
    expect(dimms[71]).toBe('pc-dimm,id=dimm71,memdev=mem-dimm71,node=1');
  });

  it("Memory.pm config: memory hotplug's start refusals; without it `-m <memory>` and NUMA split over the sockets", () => {
    const refused = (config: Record<string, string>) => {
      try {
        memoryCommandLine(config, true, 46);
        return 'started';
      } catch (err) {
        return (err as Error).message;
      }
    };
    expect(refused({ memory: '2048' })).toBe('NUMA needs to be enabled for memory hotplug');
    expect(refused({ memory: '768', numa: '1' })).toBe('minimum memory must be 1024MB');
    expect(refused({ memory: '1500', numa: '1' })).toBe('memory size (1500) must be aligned to 512 for hotplugging');
    expect(refused({ memory: '2048', numa: '1', numa0: 'cpus=0,memory=2048' })).toBe(
      'cannot enable memory hotplugging with custom NUMA topology',
    );
    expect(refused({ memory: String(600 * 1024), numa: '1' })).toBe('Total memory is bigger than 524288MB');
    expect(refused({ memory: '1536', numa: '1' })).toBe('started');
    expect(memoryCommandLine({ memory: '2048' }, false, 46)).toEqual(['-m', '2048']);
    expect(memoryCommandLine({ memory: '2048', numa: '1', sockets: '2' }, false, 46)).toEqual([
      '-m',
      '2048',
      '-object',
      'memory-backend-ram,id=ram-node0,size=1024M',
      '-numa',
      'node,nodeid=0,cpus=0,memdev=ram-node0',
      '-object',
      'memory-backend-ram,id=ram-node1,size=1024M',
      '-numa',
      'node,nodeid=1,cpus=1,memdev=ram-node1',
    ]);
  });

  it('get_max_mem: 2^(bits-21) MiB of the host bits, at most 40 unless the CPU is host/max or phys-bits says', () => {
    expect(maxMemoryMiB({}, 46)).toBe(524288);
    expect(maxMemoryMiB({}, 39)).toBe(2 ** 17); // odd bits round down: 38
    expect(maxMemoryMiB({}, undefined)).toBe(2 ** 15); // 36 bits when /proc/cpuinfo does not say
    expect(maxMemoryMiB({ cpu: 'host' }, 42)).toBe(2 ** 21); // host/max: all the host's bits
    expect(maxMemoryMiB({ cpu: 'x86-64-v2-AES,phys-bits=41' }, 46)).toBe(2 ** 19);
    expect(maxMemoryMiB({ cpu: 'host' }, 46)).toBe(4 * 1024 * 1024); // 4 TiB at most
  });

  it('qemu_memory_hotplug: DIMMs up to the next boundary, the newest unplugged first, its refusals (line per flavour)', () => {
    const config = { memory: '1024', numa: '1', sockets: '2' };
    expect(planMemoryHotplug(config, '1700', 46, '9.1')).toEqual({
      kind: 'plug',
      dimms: [
        { name: 'dimm0', sizeMiB: 512, node: 0, totalMiB: 1536 },
        { name: 'dimm1', sizeMiB: 512, node: 1, totalMiB: 2048 },
      ],
    });
    expect(planMemoryHotplug({ ...config, memory: '2048' }, '3072', 46, '9.1')).toMatchObject({
      kind: 'plug',
      dimms: [{ name: 'dimm2' }, { name: 'dimm3' }],
    });
    expect(planMemoryHotplug({ ...config, memory: '3072' }, '1600', 46, '9.1')).toEqual({
      kind: 'unplug',
      names: ['dimm3', 'dimm2', 'dimm1'],
    });
    expect(planMemoryHotplug(config, '1024', 46, '9.1')).toEqual({ kind: 'none' });
    expect(planMemoryHotplug(config, '512', 46, '9.1')).toEqual({
      kind: 'error',
      message: "memory can't be lower than 1024 MB at /usr/share/perl5/PVE/QemuServer/Memory.pm line 236.\n",
    });
    expect(planMemoryHotplug(config, '512', 46, '8.4')).toMatchObject({
      message: expect.stringMatching(/Memory\.pm line 232\.\n$/),
    });
    expect(planMemoryHotplug(config, String(1024 * 1024), 46, '9.1')).toEqual({
      kind: 'error',
      message: 'you cannot add more memory than max mem 524288 MB!\n',
    });
    expect(dimmsUpTo(config, 1024)).toEqual([]);
  });

  it('config_to_command with CPU hotplug: one vCPU in -smp and a -device per further vCPU (print_cpu_device)', () => {
    const argv = qemuCommandLine({
      vmid: 100,
      config: { sockets: '2', cores: '2', vcpus: '3', hotplug: 'cpu' },
      accel: 'tcg',
      resolveDrive: () => ({ path: '/dev/null', format: 'raw' }),
      paths: { qmp: 'q', qga: 'g', pidFile: 'p', serialLog: 's', vnc: 'v', temporaryEfivars: 'e' },
      networks: {},
    }).argv;
    const smp = argv.indexOf('-smp');
    expect(argv.slice(smp, smp + 6)).toEqual([
      '-smp',
      '1,sockets=2,cores=2,maxcpus=4',
      '-device',
      'qemu64-x86_64-cpu,id=cpu2,socket-id=0,core-id=1,thread-id=0',
      '-device',
      'qemu64-x86_64-cpu,id=cpu3,socket-id=1,core-id=0,thread-id=0',
    ]);
    expect(cpuDevice('max', { cores: '4' }, 6)).toBe('max-x86_64-cpu,id=cpu6,socket-id=1,core-id=1,thread-id=0');
    const plain = qemuCommandLine({
      vmid: 100,
      config: { sockets: '2', cores: '2', vcpus: '3' },
      accel: 'tcg',
      resolveDrive: () => ({ path: '/dev/null', format: 'raw' }),
      paths: { qmp: 'q', qga: 'g', pidFile: 'p', serialLog: 's', vnc: 'v', temporaryEfivars: 'e' },
      networks: {},
    }).argv;
    expect(plain[plain.indexOf('-smp') + 1]).toBe('3,sockets=2,cores=2,maxcpus=4');
  });
});

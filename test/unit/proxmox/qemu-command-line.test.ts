import { randomBytes } from 'node:crypto';
import {
  bootOrder,
  guestAgentSettings,
  ovmfFiles,
  qemuCommandLine,
  type QemuCommandInput,
  type UserNetwork,
} from '../../../lab/proxmox-sim/qemu/command-line';
import { sectorsAreBootable } from '../../../lab/proxmox-sim/qemu/bootable';
import { checkHint, userNetworkFor } from '../../../lab/proxmox-sim/qemu/guest-network';

/**
 * The simulator's QEMU command line from a VM config, as qemu-server's config_to_command wires it
 * (pure: no QEMU runs here), the bootable-disk rule, and the lab's user networks.
 */
const paths = {
  qmp: '/run/q/100.qmp',
  qga: '/run/q/100.qga',
  pidFile: '/run/q/100.pid',
  serialLog: '/run/q/100.serial.log',
  vnc: '/run/q/100.vnc',
  temporaryEfivars: '/run/q/100-ovmf.fd',
};
const MAC = 'BC:24:11:AA:BB:01';

function build(config: Record<string, string>, extra: Partial<QemuCommandInput> = {}) {
  return qemuCommandLine({
    vmid: 100,
    config,
    accel: 'tcg',
    paths,
    networks: {},
    ovmfVarsSize: 540672,
    resolveDrive: (file) => ({
      path: `/storage/${file.replace(/[:/]/g, '_')}`,
      format: file.endsWith('.qcow2') ? 'qcow2' : 'raw',
    }),
    ...extra,
  });
}

/** The values of every occurrence of an option (`-device` → each device string). */
const values = (argv: string[], option: string) => argv.flatMap((a, i) => (a === option ? [argv[i + 1]!] : []));
const one = (argv: string[], option: string) => {
  const v = values(argv, option);
  expect(v).toHaveLength(1);
  return v[0]!;
};

describe('QEMU command line from a PVE VM config', () => {
  it('SeaBIOS default: i440fx (pc) under TCG, memory, sockets × cores, QMP socket, pid file, serial log, no display', () => {
    const { argv, warnings } = build({
      name: 'web01',
      memory: '2048',
      sockets: '2',
      cores: '3',
      scsi0: 'local-lvm:vm-100-disk-0,size=4G',
      boot: 'order=scsi0',
    });
    expect(warnings).toEqual([]);
    expect(one(argv, '-machine')).toBe('type=pc');
    expect(one(argv, '-accel')).toBe('tcg,thread=single');
    expect(one(argv, '-m')).toBe('2048');
    expect(one(argv, '-smp')).toBe('6,sockets=2,cores=3,maxcpus=6');
    expect(one(argv, '-name')).toBe('web01,debug-threads=on');
    expect(values(argv, '-chardev')).toContain(`socket,id=qmp,path=${paths.qmp},server=on,wait=off`);
    expect(one(argv, '-mon')).toBe('chardev=qmp,mode=control');
    expect(one(argv, '-pidfile')).toBe(paths.pidFile);
    expect(values(argv, '-chardev')).toContain(`file,id=serial0,path=${paths.serialLog}`);
    expect(argv).toEqual(expect.arrayContaining(['-nodefaults', '-vga', 'none', '-display', 'none']));
    expect(one(argv, '-vnc')).toBe(`unix:${paths.vnc},password=on`);
    expect(values(argv, '-drive').some((d) => d.includes('pflash'))).toBe(false);
    expect(argv).not.toContain('-daemonize');
  });

  it('KVM only when the runtime chose it; memory as a property string; vcpus', () => {
    const { argv } = build({ memory: 'current=1024', cores: '4', vcpus: '2' }, { accel: 'kvm' });
    expect(one(argv, '-machine')).toBe('type=pc,accel=kvm');
    expect(one(argv, '-m')).toBe('1024');
    expect(one(argv, '-smp')).toBe('2,sockets=1,cores=4,maxcpus=4');
  });

  it('OVMF on q35: read-only code, the efidisk as the writable vars pflash (raw: with the vars size)', () => {
    const { argv, warnings } = build({
      bios: 'ovmf',
      machine: 'q35',
      efidisk0: 'local-lvm:vm-100-disk-1,efitype=4m,pre-enrolled-keys=0,size=528K',
    });
    expect(warnings).toEqual([]);
    expect(one(argv, '-machine')).toBe('type=q35');
    expect(values(argv, '-drive')).toEqual([
      'if=pflash,unit=0,format=raw,readonly=on,file=/usr/share/OVMF/OVMF_CODE_4M.fd',
      'if=pflash,unit=1,id=drive-efidisk0,format=raw,file=/storage/local-lvm_vm-100-disk-1,size=540672',
    ]);
  });

  it("OVMF without an efidisk: a temporary vars copy and PVE's warning; a qcow2 efidisk has no size", () => {
    const bare = build({ bios: 'ovmf' });
    expect(bare.warnings).toEqual(['no efidisk configured! Using temporary efivars disk.']);
    expect(values(bare.argv, '-drive')[1]).toBe(
      `if=pflash,unit=1,id=drive-efidisk0,format=raw,file=${paths.temporaryEfivars},size=540672`,
    );
    const qcow = build({ bios: 'ovmf', efidisk0: 'local:100/vm-100-disk-1.qcow2,efitype=4m,size=528K' });
    expect(values(qcow.argv, '-drive')[1]).toBe(
      'if=pflash,unit=1,id=drive-efidisk0,format=qcow2,file=/storage/local_100_vm-100-disk-1.qcow2',
    );
  });

  it('picks OVMF images as qemu-server does: 2m default pair, 4m pair, Microsoft keys for pre-enrolled-keys', () => {
    expect(ovmfFiles(undefined)).toEqual({
      code: '/usr/share/OVMF/OVMF_CODE.fd',
      varsTemplate: '/usr/share/OVMF/OVMF_VARS.fd',
    });
    expect(ovmfFiles({ efitype: '4m' })).toEqual({
      code: '/usr/share/OVMF/OVMF_CODE_4M.fd',
      varsTemplate: '/usr/share/OVMF/OVMF_VARS_4M.fd',
    });
    expect(ovmfFiles({ efitype: '4m', 'pre-enrolled-keys': '1' }).varsTemplate).toBe(
      '/usr/share/OVMF/OVMF_VARS_4M.ms.fd',
    );
  });

  it('virtio-scsi-single: one virtio-scsi-pci controller per disk (virtioscsiN), the disk as LUN N, iothread on its controller', () => {
    const { argv } = build({
      scsihw: 'virtio-scsi-single',
      scsi0: 'local-lvm:vm-100-disk-0,iothread=1,size=4G',
      scsi1: 'local-lvm:vm-100-disk-1,size=8G',
      boot: 'order=scsi0',
    });
    const devices = values(argv, '-device');
    expect(devices).toEqual(
      expect.arrayContaining([
        'virtio-scsi-pci,id=virtioscsi0,iothread=iothread-virtioscsi0',
        'virtio-scsi-pci,id=virtioscsi1',
        'scsi-hd,bus=virtioscsi0.0,channel=0,scsi-id=0,lun=0,drive=drive-scsi0,id=scsi0,bootindex=100',
        'scsi-hd,bus=virtioscsi1.0,channel=0,scsi-id=0,lun=1,drive=drive-scsi1,id=scsi1',
      ]),
    );
    expect(values(argv, '-object')).toEqual(['iothread,id=iothread-virtioscsi0']);
    expect(values(argv, '-drive')).toContain(
      'file=/storage/local-lvm_vm-100-disk-0,if=none,id=drive-scsi0,format=raw,cache=writeback,detect-zeroes=on',
    );
  });

  it('virtio-scsi-pci: one controller (scsihw0) for every disk; lsi (the default) and pvscsi address units by scsi-id', () => {
    const shared = values(
      build({ scsihw: 'virtio-scsi-pci', scsi0: 'local-lvm:vm-100-disk-0', scsi1: 'local-lvm:vm-100-disk-1' }).argv,
      '-device',
    );
    expect(shared.filter((d) => d.startsWith('virtio-scsi-pci'))).toEqual(['virtio-scsi-pci,id=scsihw0']);
    expect(shared).toContain('scsi-hd,bus=scsihw0.0,channel=0,scsi-id=0,lun=1,drive=drive-scsi1,id=scsi1');
    const lsi = values(build({ scsi0: 'local-lvm:vm-100-disk-0', scsi8: 'local-lvm:vm-100-disk-1' }).argv, '-device');
    expect(lsi).toEqual(
      expect.arrayContaining([
        'lsi,id=scsihw0',
        'lsi,id=scsihw1',
        'scsi-hd,bus=scsihw1.0,scsi-id=1,drive=drive-scsi8,id=scsi8',
      ]),
    );
    const pvscsi = values(build({ scsihw: 'pvscsi', scsi2: 'local-lvm:vm-100-disk-0' }).argv, '-device');
    expect(pvscsi).toEqual(
      expect.arrayContaining(['pvscsi,id=scsihw0', 'scsi-hd,bus=scsihw0.0,scsi-id=2,drive=drive-scsi2,id=scsi2']),
    );
  });

  it('sataN on AHCI controllers of six ports, ideN on the chipset (q35 numbering), virtioN as virtio-blk-pci, a CD-ROM', () => {
    const pc = values(
      build({
        sata0: 'local-lvm:vm-100-disk-0',
        sata7: 'local-lvm:vm-100-disk-1',
        ide0: 'local-lvm:vm-100-disk-2',
        ide2: 'local:iso/debian.iso,media=cdrom',
        virtio0: 'local-lvm:vm-100-disk-3,iothread=1',
        boot: 'order=virtio0;ide2',
      }).argv,
      '-device',
    );
    expect(pc).toEqual(
      expect.arrayContaining([
        'ahci,id=ahci0,multifunction=on',
        'ahci,id=ahci1,multifunction=on',
        'ide-hd,bus=ahci0.0,drive=drive-sata0,id=sata0',
        'ide-hd,bus=ahci1.1,drive=drive-sata7,id=sata7',
        'ide-hd,bus=ide.0,unit=0,drive=drive-ide0,id=ide0',
        'ide-cd,bus=ide.1,unit=0,drive=drive-ide2,id=ide2,bootindex=101',
        'virtio-blk-pci,drive=drive-virtio0,id=virtio0,iothread=iothread-virtio0,bootindex=100',
      ]),
    );
    const q35 = values(
      build({
        machine: 'q35',
        ide0: 'local-lvm:vm-100-disk-0',
        ide1: 'local-lvm:vm-100-disk-1',
        ide2: 'none,media=cdrom',
      }).argv,
      '-device',
    );
    expect(q35).toEqual(
      expect.arrayContaining([
        'ide-hd,bus=ide.0,unit=0,drive=drive-ide0,id=ide0',
        'ide-hd,bus=ide.2,unit=0,drive=drive-ide1,id=ide1',
        'ide-cd,bus=ide.1,unit=0,drive=drive-ide2,id=ide2',
      ]),
    );
    const drives = values(build({ ide2: 'none,media=cdrom' }).argv, '-drive');
    expect(drives).toEqual(['if=none,id=drive-ide2,media=cdrom']);
  });

  it("NICs: model and MAC (virtio-net-pci, e1000, vmxnet3), PVE's PCI slots on i440fx, a user network with loopback forwards", () => {
    const network: UserNetwork = {
      net: '198.51.100.0/24',
      host: '198.51.100.1',
      forwards: [{ hostPort: 40001, guestAddress: '198.51.100.20', guestPort: 8080 }],
    };
    const { argv } = build(
      {
        net0: `virtio=${MAC},bridge=vmbr0,firewall=1`,
        net1: 'e1000=BC:24:11:AA:BB:02,bridge=vnet10',
        net2: 'vmxnet3=BC:24:11:AA:BB:03,bridge=vmbr1,tag=20',
        boot: 'order=scsi0;net0',
      },
      { networks: { net0: network } },
    );
    expect(values(argv, '-device')).toEqual(
      expect.arrayContaining([
        `virtio-net-pci,mac=${MAC},netdev=net0,bus=pci.0,addr=0x12,id=net0,bootindex=101`,
        'e1000,mac=BC:24:11:AA:BB:02,netdev=net1,bus=pci.0,addr=0x13,id=net1',
        'vmxnet3,mac=BC:24:11:AA:BB:03,netdev=net2,bus=pci.0,addr=0x14,id=net2',
      ]),
    );
    expect(values(argv, '-netdev')).toEqual([
      'user,id=net0,restrict=on,net=198.51.100.0/24,host=198.51.100.1,hostfwd=tcp:127.0.0.1:40001-198.51.100.20:8080',
      'user,id=net1,restrict=on,net=192.0.2.0/24,host=192.0.2.254',
      'user,id=net2,restrict=on,net=192.0.2.0/24,host=192.0.2.254',
    ]);
    // Every forward binds loopback only.
    expect(
      values(argv, '-netdev')
        .join(' ')
        .match(/hostfwd=tcp:([^:]+):/g),
    ).toEqual(['hostfwd=tcp:127.0.0.1:']);
    // q35 has no pci.0 bridge without PVE's q35 config file: QEMU places the NIC.
    expect(values(build({ machine: 'q35', net0: `virtio=${MAC},bridge=vmbr0` }).argv, '-device')).toContain(
      `virtio-net-pci,mac=${MAC},netdev=net0,id=net0`,
    );
  });

  it('guest agent: a virtio-serial port behind the QGA socket for `agent: 1` / `enabled=1`; isa-serial for type=isa; none when disabled', () => {
    const agentDevices = (agent?: string) => {
      const { argv } = build(agent === undefined ? {} : { agent });
      return [
        ...values(argv, '-chardev').filter((c) => c.includes('qga')),
        ...values(argv, '-device').filter((d) => /qga|serial/.test(d)),
      ];
    };
    const virtio = [
      `socket,path=${paths.qga},server=on,wait=off,id=qga0`,
      'virtio-serial,id=qga0',
      'virtserialport,chardev=qga0,name=org.qemu.guest_agent.0',
    ];
    expect(agentDevices('1')).toEqual(virtio);
    expect(agentDevices('enabled=1,fstrim_cloned_disks=1')).toEqual(virtio);
    expect(agentDevices('enabled=yes')).toEqual(virtio);
    expect(agentDevices('1,type=isa')).toEqual([
      `socket,path=${paths.qga},server=on,wait=off,id=qga0`,
      'isa-serial,chardev=qga0',
    ]);
    for (const off of [undefined, '0', 'enabled=0', 'type=virtio']) expect(agentDevices(off)).toEqual([]);
    expect(guestAgentSettings('1')).toEqual({ enabled: true, type: 'virtio' });
    expect(guestAgentSettings('0')).toBeUndefined();
  });

  it('the rest qemu-server adds: smbios1, vmgenid, the balloon unless balloon: 0, -no-reboot for reboot: 0, args, cpu', () => {
    const { argv } = build({
      smbios1: 'uuid=5f3c1e0a-1b2c-4d5e-8f90-123456789abc,manufacturer=QUNNRQ==,base64=1',
      vmgenid: 'a1b2c3d4-0000-4000-8000-000000000001',
      reboot: '0',
      args: '-rtc base=localtime',
      cpu: 'host',
    });
    expect(one(argv, '-smbios')).toBe('type=1,manufacturer=ACME,uuid=5f3c1e0a-1b2c-4d5e-8f90-123456789abc');
    expect(values(argv, '-device')).toEqual(
      expect.arrayContaining([
        'vmgenid,guid=a1b2c3d4-0000-4000-8000-000000000001',
        'virtio-balloon-pci,id=balloon0,free-page-reporting=on',
      ]),
    );
    expect(argv).toContain('-no-reboot');
    expect(argv.slice(-2)).toEqual(['-rtc', 'base=localtime']);
    expect(one(argv, '-cpu')).toBe('max'); // `host` has no meaning under TCG
    expect(values(build({ balloon: '0' }).argv, '-device').some((d) => d.startsWith('virtio-balloon'))).toBe(false);
  });

  it('boot order: `order=` from bootindex 100; legacy bootdisk', () => {
    expect(bootOrder({ boot: 'order=scsi0;ide2;net0' })).toEqual({ scsi0: 100, ide2: 101, net0: 102 });
    expect(bootOrder({ boot: 'cdn', bootdisk: 'virtio0' })).toEqual({ virtio0: 100 });
    expect(bootOrder({})).toEqual({});
  });
});

describe('bootable disk', () => {
  const sector = () => Buffer.alloc(1024);
  it('needs the 0x55AA signature and a partition table: a GPT header or a used MBR entry', () => {
    expect(sectorsAreBootable(sector())).toBe(false); // a new, empty disk
    const gpt = sector();
    gpt[510] = 0x55;
    gpt[511] = 0xaa;
    expect(sectorsAreBootable(gpt)).toBe(false); // signature alone
    gpt.write('EFI PART', 512, 'latin1');
    expect(sectorsAreBootable(gpt)).toBe(true);
    const mbr = sector();
    mbr[510] = 0x55;
    mbr[511] = 0xaa;
    mbr[446] = 0x80;
    mbr[446 + 4] = 0x83;
    expect(sectorsAreBootable(mbr)).toBe(true);
    mbr[446 + 16] = 0x12; // a status byte no partition table has
    expect(sectorsAreBootable(mbr)).toBe(false);
    expect(sectorsAreBootable(gpt.subarray(0, 512))).toBe(false);
  });

  it("random images (as the simulator's other tests import) do not count", () => {
    let bootable = 0;
    for (let i = 0; i < 2000; i++) {
      const data = randomBytes(1024);
      data[510] = 0x55; // even with the signature
      data[511] = 0xaa;
      if (sectorsAreBootable(data)) bootable++;
    }
    expect(bootable).toBe(0);
  });
});

describe('lab guest networks', () => {
  it("the guest's subnet, with QEMU at the gateway, else at the last usable address not the guest's", () => {
    expect(userNetworkFor(undefined)).toEqual({ net: '192.0.2.0/24', host: '192.0.2.254' });
    expect(userNetworkFor({ address: '192.0.2.10/24', gateway: '192.0.2.1', ports: [] })).toEqual({
      net: '192.0.2.0/24',
      host: '192.0.2.1',
    });
    expect(userNetworkFor({ address: '10.20.30.40/16', ports: [] })).toEqual({
      net: '10.20.0.0/16',
      host: '10.20.255.254',
    });
    expect(userNetworkFor({ address: '10.0.0.6/29', gateway: '10.9.9.9', ports: [] })).toEqual({
      net: '10.0.0.0/29',
      host: '10.0.0.5',
    });
  });

  it('checks what the admin API is given', () => {
    expect(checkHint('net0', { address: '192.0.2.10/24', ports: [8080] })).toBeUndefined();
    expect(checkHint('eth0', { address: '192.0.2.10/24', ports: [] })).toMatch(/not a NIC key/);
    expect(checkHint('net0', { address: '192.0.2.10', ports: [] })).toMatch(/prefix/);
    expect(checkHint('net0', { address: '192.0.2.10/24', ports: [70000] })).toMatch(/ports/);
  });
});

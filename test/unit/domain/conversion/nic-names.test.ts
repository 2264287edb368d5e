import {
  configuredNics,
  describePin,
  linkFile,
  nicPins,
  pveNicName,
  udevRules,
} from '../../../../src/domain/conversion';

const NICS = [
  { slot: 'net0', mac: '00:50:56:01:00:05' },
  { slot: 'net1', mac: '00:50:56:01:00:06' },
];
const file = (path: string, text: string) => ({ path, text });

describe('the NIC names a guest configuration uses', () => {
  it('reads ifupdown stanzas, bridge and bond members, and ignores lo, VLAN suffixes and comments', () => {
    const text = [
      'source /etc/network/interfaces.d/*',
      'auto lo',
      'iface lo inet loopback',
      'allow-hotplug ens192',
      'iface ens192 inet static',
      '  address 198.51.100.24/24',
      '# iface ens999 inet dhcp',
      'auto br0',
      'iface br0 inet manual',
      '  bridge_ports ens224',
      'iface ens256.100 inet manual',
    ].join('\n');
    expect(configuredNics([file('/etc/network/interfaces', text)]).map((n) => n.name)).toEqual([
      'ens192',
      'ens224',
      'ens256',
    ]);
  });

  it('reads netplan: a name, a MAC match (the name then does not matter), and a MAC match with set-name (a pin)', () => {
    const text = [
      'network:',
      '  version: 2',
      '  ethernets:',
      '    ens192:',
      '      addresses: [198.51.100.24/24]',
      '    lan:',
      '      match:',
      '        macaddress: "00:50:56:01:00:06"',
      '    uplink:',
      '      match:',
      '        macaddress: 00:50:56:01:00:07',
      '      set-name: ens256',
      '  bridges:',
      '    br0: {}',
    ].join('\n');
    expect(configuredNics([file('/etc/netplan/50-cloud-init.yaml', text)])).toEqual([
      { name: 'ens192', file: '/etc/netplan/50-cloud-init.yaml' },
      { name: '', mac: '00:50:56:01:00:06', file: '/etc/netplan/50-cloud-init.yaml', binding: 'match' },
      { name: 'ens256', mac: '00:50:56:01:00:07', file: '/etc/netplan/50-cloud-init.yaml', binding: 'pin' },
    ]);
  });

  it('reads RHEL ifcfg files, NetworkManager keyfiles, networkd .network and .link files and udev rules', () => {
    const nics = configuredNics([
      file('/etc/sysconfig/network-scripts/ifcfg-ens192', 'DEVICE=ens192\nBOOTPROTO=none\nIPADDR=198.51.100.24\n'),
      file('/etc/sysconfig/network-scripts/ifcfg-eth1', 'DEVICE="eth1"\nHWADDR="00:50:56:01:00:06"\n'),
      file('/etc/NetworkManager/system-connections/Wired.nmconnection', '[connection]\ninterface-name=ens224\n'),
      file('/etc/NetworkManager/system-connections/b.nmconnection', '[ethernet]\nmac-address=00:50:56:01:00:07\n'),
      file('/etc/systemd/network/10-lan.network', '[Match]\nName=ens256\n'),
      file('/etc/systemd/network/20-wan.network', '[Match]\nName=wan0\nMACAddress=00:50:56:01:00:0a\n'),
      file('/etc/systemd/network/10-lan.link', '[Match]\nMACAddress=00:50:56:01:00:08\n[Link]\nName=lan0\n'),
      file(
        '/etc/udev/rules.d/70-persistent-net.rules',
        '# comment\nSUBSYSTEM=="net", ACTION=="add", ATTR{address}=="00:50:56:01:00:09", NAME="eth0"\n',
      ),
    ]);
    expect(nics.map((n) => [n.name, n.mac ?? '-', n.binding ?? '-'])).toEqual([
      ['ens192', '-', '-'],
      ['eth1', '00:50:56:01:00:06', 'match'],
      ['ens224', '-', '-'],
      ['', '00:50:56:01:00:07', 'match'],
      ['ens256', '-', '-'],
      ['wan0', '00:50:56:01:00:0a', '-'],
      ['lan0', '00:50:56:01:00:08', 'pin'],
      ['eth0', '00:50:56:01:00:09', 'pin'],
    ]);
  });
});

describe('the pins that keep NIC names', () => {
  it('gives names bound to no MAC to the NICs in slot order (ens192 before ens224), with the name PVE would give', () => {
    const configured = configuredNics([
      file('/etc/network/interfaces', 'allow-hotplug ens224\nallow-hotplug ens192\n'),
    ]);
    const { pins, notes } = nicPins(NICS, configured, '');
    expect(pins).toEqual([
      { slot: 'net0', mac: '00:50:56:01:00:05', name: 'ens192', pveName: 'ens18', basis: 'order' },
      { slot: 'net1', mac: '00:50:56:01:00:06', name: 'ens224', pveName: 'ens19', basis: 'order' },
    ]);
    expect(notes).toEqual([]);
  });

  it('pins a name the configuration binds to a MAC to that MAC, whatever the slot order', () => {
    const configured = configuredNics([
      file('/etc/systemd/network/10-a.network', '[Match]\nName=ens224\nMACAddress=00:50:56:01:00:05\n'),
      file('/etc/network/interfaces', 'auto ens192\n'),
    ]);
    expect(nicPins(NICS, configured, '').pins).toEqual([
      { slot: 'net0', mac: '00:50:56:01:00:05', name: 'ens224', pveName: 'ens18', basis: 'mac' },
      { slot: 'net1', mac: '00:50:56:01:00:06', name: 'ens192', pveName: 'ens19', basis: 'order' },
    ]);
  });

  it('needs no pin for a NIC configured by its MAC, or one named already by a .link file or udev rule', () => {
    const configured = configuredNics([
      file(
        '/etc/netplan/01.yaml',
        'network:\n  ethernets:\n    lan:\n      match:\n        macaddress: 00:50:56:01:00:05\n',
      ),
      file('/etc/systemd/network/10-x.link', '[Match]\nMACAddress=00:50:56:01:00:06\n[Link]\nName=uplink\n'),
    ]);
    const { pins, notes } = nicPins(NICS, configured, '');
    expect(pins).toEqual([]);
    expect(notes).toEqual([
      'net0 (00:50:56:01:00:05) is configured by its MAC in /etc/netplan/01.yaml: its name does not matter',
      'net1 (00:50:56:01:00:06) is already named uplink by its MAC in /etc/systemd/network/10-x.link',
    ]);
  });

  it('says which names no NIC is left for and which NICs the configuration does not name', () => {
    const configured = configuredNics([file('/etc/network/interfaces', 'auto ens192 ens224 ens256\n')]);
    expect(nicPins(NICS.slice(0, 1), configured, '').notes).toEqual([
      "the guest's network configuration names ens224, which no VMware NIC is left to be (/etc/network/interfaces)",
      "the guest's network configuration names ens256, which no VMware NIC is left to be (/etc/network/interfaces)",
    ]);
    expect(nicPins(NICS, configuredNics([file('/etc/network/interfaces', 'auto ens192\n')]), '').notes).toEqual([
      "net1 (00:50:56:01:00:06) is not named in the guest's network configuration: no pin",
    ]);
  });

  it('pins nothing for a guest on kernel names (net.ifnames=0): eth0, eth1 keep their order on Proxmox', () => {
    const configured = configuredNics([file('/etc/network/interfaces', 'auto eth0\n')]);
    const { pins, notes } = nicPins(NICS, configured, 'console=ttyS0 net.ifnames=0 biosdevname=0');
    expect(pins).toEqual([]);
    expect(notes[0]).toMatch(/net\.ifnames=0/);
  });

  it('skips a pin whose old name is what Proxmox would give anyway', () => {
    expect(
      nicPins(NICS.slice(0, 1), configuredNics([file('/etc/network/interfaces', 'auto ens18\n')]), '').pins,
    ).toEqual([]);
  });

  it('names PVE slots from 18 (net0) and writes each pin as a .link file and one udev rule file', () => {
    expect([pveNicName('net0'), pveNicName('net5')]).toEqual(['ens18', 'ens23']);
    const pin = { slot: 'net0', mac: '00:50:56:01:00:05', name: 'ens192', pveName: 'ens18', basis: 'order' as const };
    expect(linkFile(pin)).toEqual({
      path: '/etc/systemd/network/10-ferry-ens192.link',
      content: expect.stringContaining('[Match]\nMACAddress=00:50:56:01:00:05\n\n[Link]\nName=ens192\n'),
    });
    expect(udevRules([pin]).content).toContain(
      'SUBSYSTEM=="net", ACTION=="add", DRIVERS=="?*", ATTR{address}=="00:50:56:01:00:05", NAME="ens192"',
    );
    expect(describePin(pin)).toBe(
      'net0 00:50:56:01:00:05: ens192 on VMware, ens18 on Proxmox without a pin: pinned to ens192 (by slot order)',
    );
  });
});

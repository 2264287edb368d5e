/**
 * The JSON types PVE's answers have, where its schema's `returns` does not say or says otherwise. PVE does
 * not check its answers against `returns`; its JSON encoder (JSON::XS) writes a Perl scalar as a string
 * when the scalar holds a string (a regex capture, a value read from a file, a number used as a hash key)
 * and as a number when it holds one (`int()`, `+ 0`, `? 1 : 0`, `hex()`). Each entry names the field, the
 * type, and where that comes from: the Perl code (upstream file and the expression) and, where one is
 * published, a real answer in a client library's test fixtures. The answer-types test holds every
 * simulated route to these and to the schema (test/integration/proxmox/answer-types.test.ts).
 */
export type PerlJsonType =
  /** A JSON string. */
  | 'string'
  /** A JSON string holding a decimal number (`"3400.000"`, `"100"`). */
  | 'numeric string'
  /** A JSON integer. */
  | 'integer'
  /** A JSON number (integer or not). */
  | 'number'
  /** The JSON integer 0 or 1 (a Perl boolean written `? 1 : 0`). */
  | 'bit';

export interface PerlTypeRule {
  /** `METHOD /path/{template}` */
  route: string;
  /** The field: dot-separated keys, `[]` for every item of an array, `[key=cores]` for the items whose `key` is `cores`, `` for the answer itself. */
  at: string;
  type: PerlJsonType;
  source: string;
}

const NODE_STATUS = 'GET /nodes/{node}/status';
const CONFIG = 'GET /nodes/{node}/qemu/{vmid}/config';
const SNAP_CONFIG = 'GET /nodes/{node}/qemu/{vmid}/snapshot/{snapname}/config';
const CHECK_TYPE =
  'qemu-server QemuServer.pm check_type (parse_vm_config): integer `int($1)`, boolean `1`/`0`, number returned as matched';

export const PERL_TYPES: readonly PerlTypeRule[] = [
  {
    route: NODE_STATUS,
    at: 'cpuinfo.hvm',
    type: 'string',
    source:
      'pve-common ProcFSTools.pm read_cpuinfo: `$res->{hvm} = $res->{flags} =~ m/\\s(vmx|svm)\\s/` (a match result, "1"); go-proxmox tests/mocks/pve7x/nodes.go: "hvm": "1"',
  },
  {
    route: NODE_STATUS,
    at: 'cpuinfo.mhz',
    type: 'numeric string',
    source: 'read_cpuinfo: `$res->{mhz} = $1` (a capture); go-proxmox pve7x fixture: "mhz": "3400.000"',
  },
  { route: NODE_STATUS, at: 'cpuinfo.family', type: 'numeric string', source: 'read_cpuinfo: `$res->{family} = $1`' },
  {
    route: NODE_STATUS,
    at: 'cpuinfo.cpus',
    type: 'integer',
    source: 'read_cpuinfo: the processor count; pve7x fixture: "cpus": 8',
  },
  {
    route: NODE_STATUS,
    at: 'cpuinfo.user_hz',
    type: 'integer',
    source: 'read_cpuinfo: POSIX::sysconf(CLK_TCK); pve7x fixture: "user_hz": 100',
  },
  {
    route: NODE_STATUS,
    at: 'loadavg.[]',
    type: 'numeric string',
    source: 'ProcFSTools.pm read_loadavg: the three captures of /proc/loadavg; pve7x fixture: ["0.00", "0.00", "0.00"]',
  },
  { route: NODE_STATUS, at: 'uptime', type: 'integer', source: 'ProcFSTools.pm read_proc_uptime: `int($1)`' },
  {
    route: NODE_STATUS,
    at: 'boot-info.secureboot',
    type: 'bit',
    source: 'pve-manager API2/Nodes.pm get_boot_mode_info: `$secureboot[4] == 1 ? 1 : 0`',
  },
  {
    route: 'GET /cluster/nextid',
    at: '',
    type: 'numeric string',
    source:
      'go-proxmox tests/mocks/pve7x|pve8x/cluster.go: "data": "100", and its Cluster.NextID decodes a string; the schema says integer',
  },
  {
    route: 'GET /cluster/status',
    at: '[].quorate',
    type: 'bit',
    source: 'pve-manager API2/Cluster.pm get_status: pmxcfs clinfo `quorate`; pve7x fixture: "quorate": 1',
  },
  { route: 'GET /cluster/status', at: '[].local', type: 'bit', source: 'get_status: `($node eq $nodename) ? 1 : 0`' },
  {
    route: 'GET /cluster/resources',
    at: '[].vmid',
    type: 'integer',
    source: 'pve-manager API2Tools.pm extract_vm_stats: `vmid => $vmid + 0`',
  },
  { route: 'GET /cluster/resources', at: '[].template', type: 'bit', source: 'extract_vm_stats: `$d->[3] + 0`' },
  {
    route: 'GET /nodes/{node}/qemu',
    at: '[].vmid',
    type: 'integer',
    source: 'QemuServer.pm vmstatus: `vmid => int($vmid)`',
  },
  {
    route: 'GET /nodes/{node}/lxc',
    at: '[].vmid',
    type: 'integer',
    source:
      'pve-container LXC.pm config_list: `vmid => int($vmid)` (PVE 7 answered a string: go-proxmox pve7x fixture)',
  },
  {
    route: CONFIG,
    at: 'memory',
    type: 'numeric string',
    source:
      'qemu-server: `memory` is a property string ([current=]<MiB>) since qemu-server 8.1, so check_type keeps the string (go-proxmox types.go: see qemu-server commit 7f8c8087)',
  },
  {
    route: CONFIG,
    at: 'cpulimit',
    type: 'numeric string',
    source: `${CHECK_TYPE}: \`return $value if $value =~ m/^(\\d+)(\\.\\d+)?$/\`, the string from the file; the schema says number`,
  },
  { route: CONFIG, at: 'cores', type: 'integer', source: CHECK_TYPE },
  { route: CONFIG, at: 'onboot', type: 'bit', source: CHECK_TYPE },
  { route: CONFIG, at: 'digest', type: 'string', source: 'PVE::QemuConfig->load_config: the SHA1 of the file' },
  {
    route: 'GET /nodes/{node}/qemu/{vmid}/pending',
    at: '[key=cores].value',
    type: 'integer',
    source: `${CHECK_TYPE}; GuestHelpers.pm config_with_pending_array copies the parsed values (the schema says string)`,
  },
  { route: 'GET /nodes/{node}/qemu/{vmid}/pending', at: '[key=onboot].value', type: 'bit', source: CHECK_TYPE },
  {
    route: 'GET /nodes/{node}/qemu/{vmid}/pending',
    at: '[key=memory].value',
    type: 'numeric string',
    source: 'as the config: a property string',
  },
  {
    route: 'GET /nodes/{node}/qemu/{vmid}/pending',
    at: '[key=cores].pending',
    type: 'integer',
    source: `${CHECK_TYPE}: the [PENDING] section is parsed like the config (the schema says string)`,
  },
  {
    route: 'GET /nodes/{node}/qemu/{vmid}/pending',
    at: '[key=vmgenid].delete',
    type: 'integer',
    source: 'config_with_pending_array: `$delete->{force} ? 2 : 1`',
  },
  {
    route: 'GET /nodes/{node}/qemu/{vmid}/pending',
    at: '[key=digest].value',
    type: 'string',
    source: 'config_with_pending_array walks every key of the loaded config, the digest load_config adds too',
  },
  {
    route: 'GET /nodes/{node}/qemu/{vmid}/snapshot',
    at: '[].snaptime',
    type: 'integer',
    source: 'qemu-server API2/Qemu.pm snapshot_list: `snaptime => $d->{snaptime} || 0` (check_type int)',
  },
  {
    route: 'GET /nodes/{node}/qemu/{vmid}/snapshot',
    at: '[].vmstate',
    type: 'bit',
    source: 'snapshot_list: `vmstate => $d->{vmstate} ? 1 : 0`',
  },
  {
    route: 'GET /nodes/{node}/qemu/{vmid}/snapshot',
    at: '[].running',
    type: 'bit',
    source: 'snapshot_list: `check_running($vmid, 1) ? 1 : 0` on the `current` entry',
  },
  { route: SNAP_CONFIG, at: 'snaptime', type: 'integer', source: `${CHECK_TYPE} (snaptime: integer in confdesc)` },
  { route: SNAP_CONFIG, at: 'memory', type: 'numeric string', source: 'as the config: a property string' },
  { route: SNAP_CONFIG, at: 'cores', type: 'integer', source: CHECK_TYPE },
  {
    route: 'GET /nodes/{node}/qemu/{vmid}/feature',
    at: 'hasFeature',
    type: 'bit',
    source: 'QemuConfig.pm has_feature: `return $err ? 0 : 1`',
  },
  {
    route: 'GET /nodes/{node}/qemu/{vmid}/feature',
    at: 'nodes.[]',
    type: 'string',
    source: 'vm_feature: `nodes => [keys %$nodelist]`',
  },
  {
    route: 'GET /nodes/{node}/qemu/{vmid}/migrate',
    at: 'running',
    type: 'bit',
    source:
      'migrate_vm_precondition: `check_running($vmid) ? 1 : 0`; a real answer published in a public repository: "running": 1',
  },
  {
    route: 'GET /nodes/{node}/qemu/{vmid}/migrate',
    at: 'local_disks.[].size',
    type: 'integer',
    source: 'QemuServer.pm foreach_volid: the drive size parse_drive turned into bytes (parse_size)',
  },
  {
    route: 'GET /nodes/{node}/qemu/{vmid}/migrate',
    at: 'local_disks.[].cdrom',
    type: 'bit',
    source: 'foreach_volid: `//= 1` then `= 0`',
  },
  {
    route: 'GET /nodes/{node}/qemu/{vmid}/status/current',
    at: 'vmid',
    type: 'integer',
    source: 'vmstatus: `int($vmid)`',
  },
  {
    route: 'GET /nodes/{node}/qemu/{vmid}/status/current',
    at: 'ha.managed',
    type: 'bit',
    source: 'pve-ha-manager Config.pm get_service_status: `managed => 0` / `1`; pve7x fixture: "ha": {"managed": 0}',
  },
  {
    route: 'GET /nodes/{node}/qemu/{vmid}/status/current',
    at: 'agent',
    type: 'bit',
    source: 'vm_status: `$status->{agent} = 1 if …`; pve7x fixture: "agent": 1',
  },
  {
    route: 'GET /nodes/{node}/tasks',
    at: '[].pid',
    type: 'integer',
    source: 'pve-common UPID.pm decode: `pid => hex($3)`',
  },
  {
    route: 'GET /nodes/{node}/tasks',
    at: '[].endtime',
    type: 'integer',
    source: 'pve-manager API2/Tasks.pm node_tasks: `hex($endtime)`',
  },
  {
    route: 'GET /nodes/{node}/tasks/{upid}/status',
    at: 'pstart',
    type: 'integer',
    source: 'UPID.pm decode: `pstart => hex($4)`; pve7x fixture: "pstart": 1',
  },
  {
    route: 'GET /nodes/{node}/tasks/{upid}/log',
    at: '[].n',
    type: 'integer',
    source: 'pve-common Tools.pm dump_logfile: the line counter',
  },
  {
    route: 'GET /nodes/{node}/qemu/{vmid}/rrddata',
    at: '[].time',
    type: 'integer',
    source: 'PVE::RRD create_rrd_data: `time => $start`, RRDs::fetch numbers',
  },
  {
    route: 'GET /nodes/{node}/storage',
    at: '[].active',
    type: 'bit',
    source:
      'pve-storage Storage.pm storage_info: `active => 0`, then the plugin status\'s 1; pve7x fixture: "active": 1',
  },
  {
    route: 'GET /nodes/{node}/storage',
    at: '[].shared',
    type: 'bit',
    source: 'storage_info: `shared => $ids->{$storeid}->{shared} ? 1 : 0`',
  },
  { route: 'GET /nodes/{node}/storage', at: '[].total', type: 'integer', source: 'storage_info: `int($total)`' },
  {
    route: 'GET /nodes/{node}/storage/{storage}/content',
    at: '[].size',
    type: 'integer',
    source: 'pve-storage Plugin.pm list_images: file_size_info; pve7x fixture: "size": <integer>',
  },
  {
    route: 'GET /nodes/{node}/qemu/{vmid}/cloudinit/dump',
    at: '',
    type: 'string',
    source: 'Cloudinit.pm dump_cloudinit_config: the generated text',
  },
  {
    route: 'GET /nodes/{node}/qemu/{vmid}/firewall/rules',
    at: '[].pos',
    type: 'integer',
    source: 'pve-firewall API2/Firewall/Rules.pm get_rules: `$rule->{pos} = $ind++`',
  },
  {
    route: 'GET /nodes/{node}/qemu/{vmid}/firewall/rules',
    at: '[].enable',
    type: 'bit',
    source:
      'pve-firewall Firewall.pm parse_fw_rule: `$rule->{enable} = $line =~ s/^\\|// ? 0 : 1` (a `|` prefix disables)',
  },
  {
    route: 'GET /nodes/{node}/qemu/{vmid}/firewall/rules',
    at: '[].ipversion',
    type: 'integer',
    source: 'Firewall.pm verify_rule: `$rule->{ipversion} = $ipversion` (4 or 6, from Net::IP)',
  },
  {
    route: 'GET /nodes/{node}/qemu/{vmid}/firewall/rules',
    at: '[].dport',
    type: 'string',
    source: 'parse_fw_rule: the port list as written',
  },
  {
    route: 'GET /nodes/{node}/qemu/{vmid}/firewall/options',
    at: 'enable',
    type: 'bit',
    source: 'Firewall.pm parse_vmfw_option: `m/^(enable|dhcp|…):\\s*(0|1)\\s*$/` then `int($2)`',
  },
  {
    route: 'GET /nodes/{node}/qemu/{vmid}/firewall/ipset/{name}',
    at: '[].nomatch',
    type: 'bit',
    source: 'API2/Firewall/IPSet.pm create_ip: `$data->{nomatch} = 1 if $param->{nomatch}`',
  },
  {
    route: 'GET /nodes/{node}/qemu/{vmid}/agent/exec-status',
    at: 'exited',
    type: 'bit',
    source: 'QemuServer/Agent.pm qemu_exec_status: "convert JSON::Boolean to 1/0"',
  },
  {
    route: 'POST /nodes/{node}/qemu/{vmid}/agent/exec',
    at: 'pid',
    type: 'integer',
    source: "qemu-guest-agent's guest-exec answer, passed through",
  },
  {
    route: 'GET /nodes/{node}/qemu/{vmid}/agent/file-read',
    at: 'bytes-read',
    type: 'integer',
    source: 'API2/Qemu/Agent.pm file-read: `$bytes_read += $read->{count}`',
  },
  {
    route: 'POST /nodes/{node}/qemu/{vmid}/vncproxy',
    at: 'port',
    type: 'integer',
    source: 'API2/Qemu.pm vncproxy: `port => $port` from PVE::Tools::next_vnc_port (a loop counter)',
  },
  {
    route: 'POST /nodes/{node}/qemu/{vmid}/termproxy',
    at: 'port',
    type: 'integer',
    source: 'API2/Qemu.pm termproxy: `port => $port` from next_vnc_port',
  },
  {
    route: 'GET /nodes/{node}/qemu/{vmid}/vncwebsocket',
    at: 'port',
    type: 'numeric string',
    source:
      'API2/Qemu.pm vncwebsocket: `return { port => $port }`, the query parameter as it came (the schema says string)',
  },
  {
    route: 'POST /nodes/{node}/qemu/{vmid}/spiceproxy',
    at: 'tls-port',
    type: 'integer',
    source: "QemuServer.pm spice_port: query-spice's `tls-port`, a JSON number from QMP",
  },
  {
    route: 'POST /nodes/{node}/qemu/{vmid}/spiceproxy',
    at: 'delete-this-file',
    type: 'integer',
    source: "pve-access-control remote_viewer_config: `'delete-this-file' => 1`",
  },
  // The start-up reads (issue 32): access, cluster, nodes, storage content, SDN objects.
  {
    route: 'GET /nodes/{node}/qemu/{vmid}/firewall/rules/{pos}',
    at: 'pos',
    type: 'numeric string',
    source:
      'pve-firewall API2/Firewall/Rules.pm get_rule: `$rule->{pos} = $param->{pos}`, the path parameter as it came',
  },
  {
    route: 'GET /cluster/sdn/vnets/{vnet}/firewall/rules/{pos}',
    at: 'pos',
    type: 'numeric string',
    source: 'pve-firewall Rules.pm get_rule (the vnet rules share it): the path parameter as it came',
  },
  {
    route: 'GET /cluster/sdn/vnets/{vnet}/firewall/rules',
    at: '[].pos',
    type: 'integer',
    source: 'Rules.pm get_rules: `$rule->{pos} = $ind++`',
  },
  {
    route: 'GET /nodes',
    at: '[].ssl_fingerprint',
    type: 'string',
    source: 'pve-manager API2/Nodes.pm index: `$entry->{ssl_fingerprint} = PVE::Cluster::get_node_fingerprint($node)`',
  },
  {
    route: 'GET /nodes',
    at: '[].maxcpu',
    type: 'integer',
    source: 'API2Tools.pm extract_node_stats: `($d->[4] || 0) + 0`',
  },
  {
    route: 'GET /access/users',
    at: '[].enable',
    type: 'bit',
    source:
      'pve-access-control AccessControl.pm parse_user_config: `$enable = $enable ? 1 : 0` (user.cfg is re-read per request)',
  },
  {
    route: 'GET /access/users',
    at: '[].expire',
    type: 'integer',
    source: 'parse_user_config: `$expire = int($expire)`',
  },
  { route: 'GET /access/users/{userid}', at: 'enable', type: 'bit', source: 'parse_user_config (as the list)' },
  { route: 'GET /access/users/{userid}', at: 'expire', type: 'integer', source: 'parse_user_config: `int($expire)`' },
  {
    route: 'GET /access/users/{userid}/token/{tokenid}',
    at: 'privsep',
    type: 'bit',
    source: 'API2/User.pm read_token: check_token_exist, parse_user_config`s `$privsep ? 1 : 0`',
  },
  {
    route: 'GET /access/users/{userid}/token/{tokenid}',
    at: 'expire',
    type: 'integer',
    source: 'parse_user_config token lines: `int($expire)`',
  },
  {
    route: 'POST /access/users/{userid}/token/{tokenid}',
    at: 'info.privsep',
    type: 'numeric string',
    source:
      'API2/User.pm generate_token: `$token->{privsep} = defined($param->{privsep}) ? $param->{privsep} : 1`, a form value as it came',
  },
  {
    route: 'GET /access/roles',
    at: '[].special',
    type: 'bit',
    source: 'API2/Role.pm index: `special => PVE::AccessControl::role_is_special($role)` (`? 1 : 0`)',
  },
  {
    route: 'GET /access/acl',
    at: '[].propagate',
    type: 'bit',
    source: 'parse_user_config acl lines: `$propagate = $propagate ? 1 : 0`',
  },
  {
    route: 'GET /access/tfa',
    at: '[].entries.[].created',
    type: 'integer',
    source: 'proxmox-tfa TfaInfo: `created: i64` (serde through perlmod)',
  },
  {
    route: 'GET /cluster/tasks',
    at: '[].pid',
    type: 'integer',
    source: 'pve-common INotify.pm read_active_workers: PVE::UPID::decode, `pid => hex($3)`',
  },
  {
    route: 'GET /cluster/tasks',
    at: '[].saved',
    type: 'numeric string',
    source: 'read_active_workers: `$task->{saved} = $saved`, a regex capture of the active file (0|1)',
  },
  {
    route: 'GET /cluster/ha/status/manager_status',
    at: 'quorum.quorate',
    type: 'bit',
    source: 'pve-ha-manager API2/HA/Status.pm manager_status: `quorate => PVE::Cluster::check_cfs_quorum(1)`',
  },
  {
    route: 'GET /nodes/{node}/network',
    at: '[].priority',
    type: 'integer',
    source: 'pve-common Network/Interfaces.pm __read_etc_network_interfaces: `$d->{priority} = $priority++`',
  },
  {
    route: 'GET /nodes/{node}/network/{iface}',
    at: 'bridge_fd',
    type: 'numeric string',
    source: '__read_etc_network_interfaces: simple options keep the value read from the file (`$d->{$id} = $value`)',
  },
  {
    route: 'GET /nodes/{node}/network/{iface}',
    at: 'netmask',
    type: 'numeric string',
    source: '__read_etc_network_interfaces: `(undef, $d->{netmask}) = _cidr_split($cidr)`, the prefix length as text',
  },
  {
    route: 'GET /nodes/{node}/capabilities/qemu/cpu',
    at: '[].custom',
    type: 'bit',
    source: 'qemu-server CPUConfig.pm get_cpu_models: `custom => 0` / `1`',
  },
  {
    route: 'GET /nodes/{node}/storage/{storage}/content/{volume}',
    at: 'size',
    type: 'integer',
    source: 'pve-storage API2/Storage/Content.pm info: `size => int($size)`',
  },
  {
    route: 'GET /nodes/{node}/storage/{storage}/content',
    at: '[].vmid',
    type: 'integer',
    source: 'Content.pm index: `$item->{$prop} = int($item->{$prop})` for approximate-size, size, used, vmid',
  },
  {
    route: 'GET /nodes/{node}/storage/{storage}/import-metadata',
    at: 'create-args.cores',
    type: 'numeric string',
    source:
      "pve-storage GuestImport/OVF.pm parse_ovf_do: `$qm->{cores} = $xpc->findvalue(…VirtualQuantity)`, a string passed back from the parser's fork as JSON",
  },
  {
    route: 'GET /nodes/{node}/storage/{storage}/import-metadata',
    at: 'create-args.memory',
    type: 'numeric string',
    source: 'parse_ovf_do: `$qm->{memory} = $xpc->findvalue(…)`',
  },
  {
    route: 'GET /cluster/sdn/vnets/{vnet}/subnets/{subnet}',
    at: 'mask',
    type: 'numeric string',
    source: 'pve-network Subnets.pm sdn_subnets_config: `my ($zone, $network, $mask) = split(/-/, $id)`',
  },
  {
    route: 'GET /nodes/{node}/query-url-metadata',
    at: 'size',
    type: 'integer',
    source: 'pve-manager API2/Nodes.pm query_url_metadata: `$ret->{size} = $size + 0 if $size`',
  },
  {
    route: 'GET /cluster/sdn/controllers/{controller}',
    at: 'asn',
    type: 'integer',
    source: 'pve-common SectionConfig.pm check_value: integer options `$value + 0`',
  },
];

/**
 * Where PVE's answer breaks its own schema's `returns`, the message checkReturns gives for it and why:
 * the simulator answers as PVE does, and the answer-types test accepts only these.
 */
export interface SchemaDeviation {
  route: string;
  message: RegExp;
  why: string;
}

export const SCHEMA_DEVIATIONS: readonly SchemaDeviation[] = [
  {
    route: 'GET /cluster/nextid',
    message: /^\(answer\) is "\d+", not an integer$/,
    why: 'the next VMID is a JSON string (PERL_TYPES)',
  },
  {
    route: 'GET /nodes/{node}/qemu/{vmid}/pending',
    message: /^\[\d+\]\.(value|pending) is -?\d+, not a string$/,
    why: 'integer options are numbers (PERL_TYPES)',
  },
  {
    route: 'GET /nodes/{node}/qemu/{vmid}/config',
    message: /^cpulimit is "\d+(\.\d+)?", not a number$/,
    why: '`number` options keep the string from the config file (PERL_TYPES)',
  },
  {
    route: 'GET /nodes/{node}/qemu/{vmid}/snapshot/{snapname}/config',
    message: /^cpulimit is "\d+(\.\d+)?", not a number$/,
    why: 'as the config',
  },
  {
    route: 'GET /nodes/{node}/qemu/{vmid}/migrate',
    message: /^local_disks\[\d+\]\.size is missing$/,
    why: 'qemu-server foreach_volid sets `size` only from a drive that has one (`//= $size if $size`): a cloud-init drive, a CD-ROM image and a saved state have none, though the schema lists size as required',
  },
  {
    route: 'GET /pools/{poolid}',
    message: /^poolid is not in the schema$/,
    why: "pve-manager Pool.pm read_pool returns index's entry, `poolid` included (since nested pools, 4448f8d3), though its returns has additionalProperties 0",
  },
  {
    route: 'GET /nodes/{node}/qemu/{vmid}/firewall/rules/{pos}',
    message: /^pos is "\d+", not an integer$/,
    why: 'get_rule echoes the path parameter (PERL_TYPES)',
  },
  {
    route: 'GET /cluster/sdn/vnets/{vnet}/firewall/rules/{pos}',
    message: /^pos is "\d+", not an integer$/,
    why: 'get_rule echoes the path parameter (PERL_TYPES)',
  },
  {
    route: 'GET /access/users/{userid}',
    message: /^tokens is not an object$/,
    why: 'User.pm $extract_user_data: `$res->{tokens} = $data->{tokens}`, undef (JSON null) for a user without tokens',
  },
  {
    route: 'GET /access/users',
    message: /^\[\d+\]\.tokens is not an array$/,
    why: 'with `full`, index turns defined tokens into a list and leaves the undef of a user without tokens: null',
  },
  {
    route: 'POST /access/users/{userid}/token/{tokenid}',
    message: /^info\.(privsep|expire) is "\d+", not (a boolean \(0\/1\)|an integer)$/,
    why: 'generate_token answers the parameters as they came (PERL_TYPES)',
  },
  {
    route: 'PUT /access/users/{userid}/token/{tokenid}',
    message: /^(privsep|expire) is "\d+", not (a boolean \(0\/1\)|an integer)$/,
    why: 'update_token_info sets the parameters as they came into the answer',
  },
  {
    route: 'GET /access/users/{userid}/tfa',
    message: /^user is \[[^\]]*\], not a string$/,
    why: 'User.pm read_user_tfa_type: with `multiple`, `$res->{user} = $user` is the list of the TFA types set, though its returns says one string',
  },
  {
    route: 'GET /nodes/{node}/storage/{storage}/content',
    message: /^\[\d+\]\.parent is null, not a string$/,
    why: 'pve-storage Plugin.pm list_images: `parent => $parent`, undef (null) for an image without a backing file',
  },
  {
    route: 'GET /nodes/{node}/storage/{storage}/import-metadata',
    message: /^source is "import\/[^"]+", not one of esxi$/,
    why: 'DirPlugin get_import_metadata: `source => $volname`; the enum lists only the ESXi importer`s value',
  },
  {
    route: 'GET /nodes/{node}/capabilities/qemu/migration',
    message: /^has-dbus-vmstate is (true|false), not a boolean \(0\/1\)$/,
    why: 'qemu-server NodeCapabilities/Qemu/Migration.pm answers `JSON::true` / `JSON::false`, not 1/0',
  },
  {
    route: 'GET /cluster/sdn/dry-run',
    message: /^(frr-diff|interfaces-diff) is null, not a string$/,
    why: 'pve-network SDN.pm get_diff: `$diff = undef if !$diff` where nothing differs',
  },
];

import { isIP } from 'node:net';
import { fail, paramError } from '../api-error';
import type { SimVm } from '../cluster';
import {
  assertUnmodified,
  firewallOf,
  listWithDigest,
  withDigest,
  type FirewallRule,
  type VmFirewall,
} from '../vm-firewall';
import { WithTotal, type RouteTable, type SimRequest } from './types';

/**
 * `/nodes/{node}/qemu/{vmid}/firewall…` (pve-firewall's API2/Firewall/VM.pm, Rules.pm, Aliases.pm,
 * IPSet.pm): the VM's options, rules (a new rule goes first; update moves it with `moveto`), aliases and
 * IP sets with their entries, each list with its digest; the references rules may name; the VM's log
 * lines (the simulator filters no packets, so none). Rules are verified as verify_rule does for what the
 * simulator knows: actions, security groups (the cluster has none), ports that need a protocol, aliases
 * and IP sets by reference, the IP version of addresses. Macros are taken by name, not expanded.
 */
const BASE = '/nodes/{node}/qemu/{vmid}/firewall';
const RULE_KEYS = [
  'action',
  'comment',
  'dest',
  'dport',
  'enable',
  'icmp-type',
  'iface',
  'log',
  'macro',
  'proto',
  'source',
  'sport',
  'type',
];
const INTEGER_OPTIONS = new Set(['enable', 'dhcp', 'ndp', 'radv', 'macfilter', 'ipfilter']);

function vmOf(req: SimRequest): SimVm {
  return req.cluster.vm(req.params.node!, Number(req.params.vmid));
}

/** Runs a change under the VM's firewall config lock (lock_vmfw_conf). */
const locked = async (req: SimRequest, change: (fw: VmFirewall) => void) => {
  const vm = vmOf(req);
  await vm.flock.run(req.cluster.settings.flockTimeoutMs, async () => change(firewallOf(vm)));
  return null;
};

/** copy_rule_data: given keys set, `''`/`-` deletes. */
function copyRuleData(rule: FirewallRule, params: Record<string, string>): void {
  for (const key of RULE_KEYS) {
    const v = params[key];
    if (v === undefined) continue;
    if (v === '' || v === '-') delete rule[key];
    else rule[key] = key === 'enable' ? Number(v) : v;
  }
}

function verifyRule(fw: VmFirewall, rule: FirewallRule): void {
  const action = String(rule.action);
  if (rule.type === 'group') throw paramError({ action: `security group '${action}' does not exist` });
  if (!['ACCEPT', 'DROP', 'REJECT'].includes(action)) throw paramError({ action: `unknown action '${action}'` });
  for (const port of ['dport', 'sport'])
    if (rule[port] !== undefined && !rule.proto && !rule.macro)
      throw paramError({ proto: `missing property - '${port}' requires this property` });
  let ipversion: number | undefined;
  for (const side of ['source', 'dest']) {
    const value = rule[side];
    if (value === undefined) continue;
    const ref = /^\+(?:guest\/)?(.+)$/.exec(String(value));
    if (ref) {
      if (!fw.ipsets.has(ref[1]!)) throw paramError({ [side]: `no such ipset '${ref[1]}'` });
      continue;
    }
    const address = String(value)
      .split(/[,-]/)[0]!
      .replace(/\/\d+$/, '');
    const version = isIP(address);
    if (version === 0) {
      const alias = String(value).replace(/^guest\//, '');
      if (!fw.aliases.has(alias)) throw paramError({ [side]: `no such alias '${value}'` });
      continue;
    }
    if (ipversion && ipversion !== version) throw fail('detected mixed ipv4/ipv6 addresses in rule');
    ipversion = version;
  }
  if (ipversion) rule.ipversion = ipversion;
  else delete rule.ipversion;
}

function ruleAt(fw: VmFirewall, pos: number): FirewallRule {
  if (pos >= fw.rules.length) throw fail(`no rule at position ${pos}`);
  return fw.rules[pos]!;
}

const sortedAliases = (fw: VmFirewall) => [...fw.aliases.values()].sort((a, b) => a.name.localeCompare(b.name));

function ipsetOf(fw: VmFirewall, name: string) {
  const set = fw.ipsets.get(name);
  if (!set) throw fail(`no such IPSet '${name}'`);
  return set;
}

export const firewallRoutes: RouteTable = {
  [`GET ${BASE}`]: () => ['rules', 'aliases', 'ipset', 'refs', 'options'].map((name) => ({ name })),

  [`GET ${BASE}/options`]: (req) => withDigest(firewallOf(vmOf(req)).options).data,
  [`PUT ${BASE}/options`]: (req) =>
    locked(req, (fw) => {
      assertUnmodified(withDigest(fw.options).digest, req.params.digest);
      for (const opt of (req.params.delete ?? '').split(/[,;\s]+/).filter(Boolean)) {
        if (
          ![
            'enable',
            'dhcp',
            'ndp',
            'radv',
            'macfilter',
            'ipfilter',
            'log_level_in',
            'log_level_out',
            'policy_in',
            'policy_out',
          ].includes(opt)
        )
          throw paramError({ delete: `no such option '${opt}'` });
        delete fw.options[opt];
      }
      for (const [key, value] of Object.entries(req.params)) {
        if (['node', 'vmid', 'delete', 'digest'].includes(key)) continue;
        fw.options[key] = INTEGER_OPTIONS.has(key) ? Number(value) : value;
      }
    }),

  [`GET ${BASE}/rules`]: (req) =>
    listWithDigest(firewallOf(vmOf(req)).rules).data.map((rule, pos) => ({ ...rule, pos })),
  [`POST ${BASE}/rules`]: (req) =>
    locked(req, (fw) => {
      const rule: FirewallRule = {};
      copyRuleData(rule, req.params);
      verifyRule(fw, rule);
      if (req.params.enable === undefined) rule.enable = 0;
      fw.rules.unshift(rule);
    }),
  [`GET ${BASE}/rules/{pos}`]: (req) => {
    const fw = firewallOf(vmOf(req));
    const pos = Number(req.params.pos);
    ruleAt(fw, pos);
    // get_rule: `$rule->{pos} = $param->{pos}`, the path parameter as it came (a string).
    return { ...listWithDigest(fw.rules).data[pos], pos: req.params.pos };
  },
  [`PUT ${BASE}/rules/{pos}`]: (req) =>
    locked(req, (fw) => {
      assertUnmodified(listWithDigest(fw.rules).digest, req.params.digest);
      const pos = Number(req.params.pos);
      const rule = ruleAt(fw, pos);
      const moveto = req.params.moveto === undefined ? undefined : Number(req.params.moveto);
      if (moveto !== undefined && moveto !== pos) {
        const rest = fw.rules.filter((_, i) => i !== pos);
        rest.splice(Math.min(moveto > pos ? moveto - 1 : moveto, rest.length), 0, rule);
        fw.rules = rest;
        return;
      }
      const next = { ...rule };
      copyRuleData(next, req.params);
      for (const key of (req.params.delete ?? '').split(/[,;\s]+/).filter(Boolean)) {
        if (key === 'type' || key === 'action')
          throw paramError({ delete: `unable to delete required property '${key}'` });
        if (!RULE_KEYS.includes(key)) throw paramError({ delete: `no such property ('${key}')` });
        delete next[key];
      }
      verifyRule(fw, next);
      fw.rules[pos] = next;
    }),
  [`DELETE ${BASE}/rules/{pos}`]: (req) =>
    locked(req, (fw) => {
      assertUnmodified(listWithDigest(fw.rules).digest, req.params.digest);
      ruleAt(fw, Number(req.params.pos));
      fw.rules.splice(Number(req.params.pos), 1);
    }),

  [`GET ${BASE}/aliases`]: (req) => listWithDigest(sortedAliases(firewallOf(vmOf(req)))).data,
  [`POST ${BASE}/aliases`]: (req) =>
    locked(req, (fw) => {
      const name = req.params.name!;
      if (fw.aliases.has(name)) throw paramError({ name: `alias '${name}' already exists` });
      fw.aliases.set(name, {
        name,
        cidr: req.params.cidr!,
        ...(req.params.comment ? { comment: req.params.comment } : {}),
      });
    }),
  [`GET ${BASE}/aliases/{name}`]: (req) => {
    const fw = firewallOf(vmOf(req));
    if (!fw.aliases.has(req.params.name!)) throw paramError({ name: 'no such alias' });
    return listWithDigest(sortedAliases(fw)).data.find((a) => a.name === req.params.name);
  },
  [`PUT ${BASE}/aliases/{name}`]: (req) =>
    locked(req, (fw) => {
      assertUnmodified(listWithDigest(sortedAliases(fw)).digest, req.params.digest);
      const alias = fw.aliases.get(req.params.name!);
      if (!alias) throw paramError({ name: 'no such alias' });
      const next = {
        ...alias,
        cidr: req.params.cidr!,
        ...(req.params.comment !== undefined ? { comment: req.params.comment } : {}),
      };
      if (req.params.rename && req.params.rename !== alias.name) {
        if (fw.aliases.has(req.params.rename))
          throw paramError({ name: `alias '${req.params.rename}' already exists` });
        fw.aliases.delete(alias.name);
        next.name = req.params.rename;
      }
      fw.aliases.set(next.name, next);
    }),
  [`DELETE ${BASE}/aliases/{name}`]: (req) =>
    locked(req, (fw) => {
      assertUnmodified(listWithDigest(sortedAliases(fw)).digest, req.params.digest);
      fw.aliases.delete(req.params.name!);
    }),

  [`GET ${BASE}/ipset`]: (req) => {
    const fw = firewallOf(vmOf(req));
    const list = [...fw.ipsets.keys()]
      .sort()
      .map((name) => ({ name, ...(fw.ipsets.get(name)!.comment ? { comment: fw.ipsets.get(name)!.comment } : {}) }));
    return listWithDigest(list).data;
  },
  [`POST ${BASE}/ipset`]: (req) =>
    locked(req, (fw) => {
      const { name, rename, comment } = req.params as Record<string, string | undefined>;
      if (rename) {
        const set = fw.ipsets.get(rename);
        if (!set) throw paramError({ name: `IPSet '${rename}' does not exist` });
        if (rename !== name && fw.ipsets.has(name!)) throw paramError({ name: `IPSet '${name}' does already exist` });
        fw.ipsets.delete(rename);
        fw.ipsets.set(name!, { ...set, ...(comment !== undefined ? { comment } : {}) });
        return;
      }
      if (fw.ipsets.has(name!)) throw paramError({ name: `IPSet '${name}' already exists` });
      fw.ipsets.set(name!, { entries: [], ...(comment ? { comment } : {}) });
    }),
  [`GET ${BASE}/ipset/{name}`]: (req) => listWithDigest(ipsetOf(firewallOf(vmOf(req)), req.params.name!).entries).data,
  [`POST ${BASE}/ipset/{name}`]: (req) =>
    locked(req, (fw) => {
      const set = ipsetOf(fw, req.params.name!);
      const cidr = req.params.cidr!;
      if (set.entries.some((e) => e.cidr === cidr)) throw paramError({ cidr: `address '${cidr}' already exists` });
      if (/\/0$/.test(cidr)) throw paramError({ cidr: 'a zero prefix is not allowed in ipset entries' });
      set.entries.push({
        cidr,
        ...(req.params.nomatch === '1' ? { nomatch: 1 } : {}),
        ...(req.params.comment ? { comment: req.params.comment } : {}),
      });
    }),
  [`DELETE ${BASE}/ipset/{name}`]: (req) =>
    locked(req, (fw) => {
      const set = ipsetOf(fw, req.params.name!);
      if (set.entries.length > 0 && req.params.force !== '1') throw fail(`IPSet '${req.params.name}' is not empty`);
      fw.ipsets.delete(req.params.name!);
    }),
  [`GET ${BASE}/ipset/{name}/{cidr}`]: (req) => {
    const entries = listWithDigest(ipsetOf(firewallOf(vmOf(req)), req.params.name!).entries).data;
    const entry = entries.find((e) => e.cidr === req.params.cidr);
    if (!entry) throw paramError({ cidr: 'no such IP/Network' });
    return entry;
  },
  [`PUT ${BASE}/ipset/{name}/{cidr}`]: (req) =>
    locked(req, (fw) => {
      const set = ipsetOf(fw, req.params.name!);
      assertUnmodified(listWithDigest(set.entries).digest, req.params.digest);
      const entry = set.entries.find((e) => e.cidr === req.params.cidr);
      if (!entry) throw paramError({ cidr: 'no such IP/Network' });
      if (req.params.nomatch !== undefined) entry.nomatch = Number(req.params.nomatch);
      if (req.params.comment !== undefined) entry.comment = req.params.comment;
    }),
  [`DELETE ${BASE}/ipset/{name}/{cidr}`]: (req) =>
    locked(req, (fw) => {
      const set = ipsetOf(fw, req.params.name!);
      assertUnmodified(listWithDigest(set.entries).digest, req.params.digest);
      set.entries = set.entries.filter((e) => e.cidr !== req.params.cidr);
    }),

  [`GET ${BASE}/refs`]: (req) => {
    const fw = firewallOf(vmOf(req));
    const type = req.params.type;
    const refs: Array<Record<string, unknown>> = [];
    if (!type || type === 'ipset')
      for (const [name, set] of fw.ipsets)
        refs.push({
          type: 'ipset',
          name,
          ref: `+${name}`,
          scope: 'guest',
          ...(set.comment ? { comment: set.comment } : {}),
        });
    if (!type || type === 'alias')
      for (const a of fw.aliases.values())
        refs.push({
          type: 'alias',
          name: a.name,
          ref: a.name,
          scope: 'guest',
          ...(a.comment ? { comment: a.comment } : {}),
        });
    return refs;
  },

  // pve-firewall logs nothing for a VM whose packets nobody filters: dump_logfile's "no content".
  [`GET ${BASE}/log`]: (req) => {
    vmOf(req);
    return new WithTotal([{ n: 1, t: 'no content' }], 1);
  },
};

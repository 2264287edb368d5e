import { perlPatternToRegExp } from '../../../lab/proxmox-sim/schema/perl-pattern';
import { checkPropertyString, schemaFor, validateParams } from '../../../lab/proxmox-sim/schema/validate';
import type { ParamSchema } from '../../../lab/proxmox-sim/schema/subset';

describe('Perl patterns from the schema', () => {
  it('translates (?^:…), (?^i:…) and {,N}, anchored', () => {
    const trunks = perlPatternToRegExp('(?^:\\d+(?:-\\d+)?(?:;\\d+(?:-\\d+)?)*)');
    expect(['10', '10-20;30'].map((v) => trunks.test(v))).toEqual([true, true]);
    expect(trunks.test('10;x')).toBe(false);
    const alias = perlPatternToRegExp('(?^i:[\\(\\)-_.\\w\\d\\s]{0,256})');
    expect(alias.flags).toBe('i');
    const short = perlPatternToRegExp('[A-Za-z0-9\\-_\\s]{,8}');
    expect([short.test('abc'), short.test('123456789')]).toEqual([true, false]);
  });
});

describe('schema checks', () => {
  const props: Record<string, ParamSchema> = {
    'scsi[n]': {
      type: 'string',
      optional: 1,
      format: {
        file: { type: 'string', default_key: 1, format: 'pve-volume-id-or-qm-path' },
        iothread: { type: 'boolean', optional: 1 },
      },
    },
    vmid: { type: 'integer', minimum: 100 },
    'net[n]': {
      type: 'string',
      optional: 1,
      format: {
        model: { type: 'string', default_key: 1, enum: ['virtio', 'e1000'] },
        virtio: { alias: 'macaddr', keyAlias: 'model' },
        macaddr: { type: 'string', optional: 1, format: 'mac-addr' },
        bridge: { type: 'string', optional: 1 },
      },
    },
  };

  it('folds indexed keys within qemu-server ranges', () => {
    expect(schemaFor(props, 'scsi30')).toBe(props['scsi[n]']);
    expect(schemaFor(props, 'scsi31')).toBeUndefined();
    expect(schemaFor(props, 'scsi01')).toBeUndefined();
  });

  it('checks property strings, with the model=MAC key alias', () => {
    expect(
      checkPropertyString(
        props['net[n]']!.format as Record<string, ParamSchema>,
        'virtio=BC:24:11:00:00:01,bridge=vmbr0',
        'net0',
      ),
    ).toEqual([]);
    expect(checkPropertyString(props['net[n]']!.format as Record<string, ParamSchema>, 'bridge=vmbr0', 'net0')).toEqual(
      ['net0.model: property is missing and it is not optional'],
    );
    expect(
      checkPropertyString(props['scsi[n]']!.format as Record<string, ParamSchema>, 'local:1,iothread=2,foo=1', 'scsi0'),
    ).toEqual([
      "scsi0.iothread: type check ('boolean') failed - got '2'",
      'scsi0.foo: property is not defined in schema and the schema does not allow additional properties',
    ]);
  });

  it("reads booleans in property strings as PVE's parse_boolean does; top-level booleans must be 1 or 0", () => {
    const scsi = props['scsi[n]']!.format as Record<string, ParamSchema>;
    for (const word of ['on', 'off', 'yes', 'no', 'true', 'FALSE', '1', '0'])
      expect(checkPropertyString(scsi, `local:1,iothread=${word}`, 'scsi0')).toEqual([]);
    expect(checkPropertyString(scsi, 'local:1,iothread=enabled', 'scsi0')).toEqual([
      "scsi0.iothread: type check ('boolean') failed - got 'enabled'",
    ]);
    const flag = { parameters: { properties: { force: { type: 'boolean', optional: 1 } } } };
    expect(validateParams(flag, { force: 'on' }).errors).toEqual({ force: "type check ('boolean') failed - got 'on'" });
    expect(validateParams(flag, { force: true }).params).toEqual({ force: '1' });
  });

  it('a default does not make a required key optional (agent.enabled, memory.current)', () => {
    const agent: Record<string, ParamSchema> = {
      enabled: { type: 'boolean', default_key: 1, default: 0 },
      type: { type: 'string', optional: 1, enum: ['virtio', 'isa'] },
    };
    expect(checkPropertyString(agent, 'type=virtio', 'agent')).toEqual([
      'agent.enabled: property is missing and it is not optional',
    ]);
    expect(checkPropertyString(agent, '1,type=virtio', 'agent')).toEqual([]);
  });

  it('collects every problem of a request, keyed by parameter', () => {
    expect(validateParams({ parameters: { properties: props } }, { scsi1: 'local:1', extra: 1 })).toEqual({
      params: { scsi1: 'local:1' },
      errors: {
        extra: 'property is not defined in schema and the schema does not allow additional properties',
        vmid: 'property is missing and it is not optional',
      },
    });
    expect(validateParams({ parameters: { properties: props } }, { vmid: true }).errors).toEqual({
      vmid: "type check ('integer') failed - got '1'",
    });
  });
});

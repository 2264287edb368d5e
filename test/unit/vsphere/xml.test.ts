import { child, children, parseXml, pathOf, XmlSyntaxError } from '../../../src/vsphere/xml';
import { asBool, asInt, asMoRef, Fields } from '../../../src/vsphere/read';
import { VsphereResponseError } from '../../../src/vsphere/faults';

const XSI = 'http://www.w3.org/2001/XMLSchema-instance';

describe('parseXml', () => {
  it.each([
    ['xsi', `xmlns:xsi="${XSI}"`, 'xsi:type'],
    ['XMLSchema-instance (vcsim ≤ 0.49)', `xmlns:XMLSchema-instance="${XSI}"`, 'XMLSchema-instance:type'],
    ['_XMLSchema-instance (vcsim ≥ 0.50)', `xmlns:_XMLSchema-instance="${XSI}"`, '_XMLSchema-instance:type'],
  ])('reads xsi:type whatever the prefix (%s), apart from a MoRef type attribute', (_name, decl, attr) => {
    const root = parseXml(`<val ${decl} ${attr}="ManagedObjectReference" type="HostSystem">host-34</val>`);
    expect(root.xsiType).toBe('ManagedObjectReference');
    expect(root.attrs).toEqual({ type: 'HostSystem' });
    expect(asMoRef(root, 'here')).toEqual({ type: 'HostSystem', value: 'host-34' });
  });

  it('takes the local part of a prefixed xsi:type value and ignores a type attribute in another namespace', () => {
    const root = parseXml(`<v xmlns:xsi="${XSI}" xmlns:o="urn:other" xsi:type="xsd:int" o:type="nope">42</v>`);
    expect(root.xsiType).toBe('int');
    expect(root.attrs).toEqual({});
  });

  it('keeps one element as an array of one, and repeats as repeats', () => {
    const one = parseXml('<r><vlanId><start>1</start><end>2</end></vlanId></r>');
    const two = parseXml(
      '<r><vlanId><start>1</start><end>2</end></vlanId><vlanId><start>5</start><end>5</end></vlanId></r>',
    );
    expect(children(one, 'vlanId')).toHaveLength(1);
    expect(children(two, 'vlanId')).toHaveLength(2);
    expect(new Fields(one, 'r').objects('vlanId').map((f) => f.requiredInt('start'))).toEqual([1]);
  });

  it('never converts values: names that look like numbers or booleans stay strings', () => {
    const root = parseXml('<r><name>0042</name><flag>true</flag><big>12345678901234567890</big></r>');
    expect(child(root, 'name')!.text).toBe('0042');
    expect(child(root, 'flag')!.text).toBe('true');
    expect(child(root, 'big')!.text).toBe('12345678901234567890');
  });

  it('unescapes entities and CDATA in text', () => {
    const root = parseXml('<r><n>a &amp; b &lt;c&gt; &quot;d&quot; &#233;</n><c><![CDATA[<x>]]></c></r>');
    expect(child(root, 'n')!.text).toBe('a & b <c> "d" é');
    expect(child(root, 'c')!.text).toBe('<x>');
  });

  it('resolves element namespaces (soapenv prefix or default)', () => {
    const root = parseXml(
      '<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/"><soapenv:Body><R xmlns="urn:vim25"/></soapenv:Body></soapenv:Envelope>',
    );
    expect(root.name).toBe('Envelope');
    expect(root.uri).toBe('http://schemas.xmlsoap.org/soap/envelope/');
    expect(child(root, 'Body')!.children[0]).toMatchObject({ name: 'R', uri: 'urn:vim25' });
  });

  it('reports not-well-formed documents', () => {
    expect(() => parseXml('<a><b></a>')).toThrow(XmlSyntaxError);
    expect(() => parseXml('<a xsi:type="x"/>')).toThrow(/unbound namespace prefix/i);
    expect(() => parseXml('')).toThrow(XmlSyntaxError);
  });

  it('names where an element is', () => {
    const root = parseXml('<r><o><p>1</p></o><o><p>2</p><p>3</p></o></r>');
    const second = children(root, 'o')[1]!;
    expect(pathOf(children(second, 'p')[1]!)).toBe('r/o[2]/p[2]');
  });
});

describe('typed reads', () => {
  const leaf = (text: string) => parseXml(`<v>${text}</v>`);

  it('reads ints, longs and booleans strictly', () => {
    expect(asInt(leaf('4096'), 'x')).toBe(4096);
    expect(asInt(leaf('-1'), 'x')).toBe(-1);
    expect(asInt(leaf('68719476736'), 'x')).toBe(68719476736);
    expect(asBool(leaf('true'), 'x')).toBe(true);
    expect(asBool(leaf('0'), 'x')).toBe(false);
  });

  it('says where a value does not fit and what it held', () => {
    expect(() => asInt(leaf('4k'), 'VirtualMachine vm-42 config.hardware.numCPU')).toThrow(
      'unexpected vSphere answer at VirtualMachine vm-42 config.hardware.numCPU: expected a whole number, got "4k"',
    );
    expect(() => asInt(leaf('99999999999999999999'), 'x')).toThrow(/too large/);
    expect(() => asBool(leaf('yes'), 'x')).toThrow(VsphereResponseError);
    expect(() => asMoRef(leaf('vm-1'), 'x.parent')).toThrow(/x\.parent: expected a managed object reference/);
    expect(() => new Fields(parseXml('<o/>'), 'Task task-1 info').requiredString('state')).toThrow(
      /Task task-1 info: state is missing/,
    );
  });
});

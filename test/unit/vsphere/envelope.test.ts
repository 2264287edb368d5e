import {
  element,
  elementWith,
  escapeXml,
  methodCall,
  moRef,
  optional,
  soapEnvelope,
  typed,
} from '../../../src/vsphere/envelope';
import { parseXml, child } from '../../../src/vsphere/xml';

describe('request building', () => {
  it('escapes every string, in text and attributes', () => {
    const xml = methodCall(
      'Login',
      { type: 'SessionManager', value: 'Sess"ion<' },
      element('userName', 'a&b'),
      element('password', `<pw'>"&`),
    );
    expect(xml.markup).toBe(
      '<Login xmlns="urn:vim25"><_this type="SessionManager">Sess&quot;ion&lt;</_this>' +
        '<userName>a&amp;b</userName><password>&lt;pw&apos;&gt;&quot;&amp;</password></Login>',
    );
    // and it round-trips through a real parser to the same strings
    const parsed = parseXml(soapEnvelope(xml));
    const login = child(child(parsed, 'Body')!, 'Login')!;
    expect(child(login, 'password')!.text).toBe(`<pw'>"&`);
    expect(child(login, '_this')!.attrs.type).toBe('SessionManager');
  });

  it('puts xsi:type on polymorphic values and type on MoRefs', () => {
    const spec = typed(
      'vlan',
      'VmwareDistributedVirtualSwitchPvlanSpec',
      element('inherited', false),
      element('pvlanId', 501),
    );
    expect(spec.markup).toBe(
      '<vlan xsi:type="VmwareDistributedVirtualSwitchPvlanSpec"><inherited>false</inherited><pvlanId>501</pvlanId></vlan>',
    );
    expect(moRef('datastore', { type: 'Datastore', value: 'datastore-12' }).markup).toBe(
      '<datastore type="Datastore">datastore-12</datastore>',
    );
    const doc = parseXml(soapEnvelope(element('x', spec)));
    expect(child(child(child(doc, 'Body')!, 'x')!, 'vlan')!.xsiType).toBe('VmwareDistributedVirtualSwitchPvlanSpec');
  });

  it('keeps the order it is given and leaves unset optionals out', () => {
    expect(
      element('spec', element('a', 1), optional('b', undefined), optional('c', 0), [
        element('d', 'x'),
        element('d', 'y'),
      ]).markup,
    ).toBe('<spec><a>1</a><c>0</c><d>x</d><d>y</d></spec>');
  });

  it('refuses what XML cannot carry instead of sending it', () => {
    expect(() => escapeXml('bell\u0007')).toThrow(/U\+0007/);
    expect(() => element('n', Number.NaN)).toThrow(RangeError);
    expect(() => element('bad name')).toThrow(/not an XML element name/);
    expect(() => elementWith('a', { 'x"y': '1' })).toThrow(/not an XML attribute name/);
  });
});

import { faultCategory, faultFromLocalized, faultFromSoap, VsphereFault } from '../../../src/vsphere/faults';
import { throwIfNotAuthenticated } from '../../../src/vsphere/property-collector';
import { FerryError } from '../../../src/errors';
import { child, parseXml } from '../../../src/vsphere/xml';

const NS =
  'xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"';

describe('faults', () => {
  it('types a SOAP fault by the xsi:type of its detail and keeps its facts', () => {
    const fault = child(
      parseXml(
        `<soapenv:Fault ${NS}><faultcode>ServerFaultCode</faultcode><faultstring></faultstring><detail>` +
          '<InvalidPowerStateFault xmlns="urn:vim25" xsi:type="InvalidPowerState"><requestedState>poweredOn</requestedState>' +
          '<existingState>poweredOff</existingState></InvalidPowerStateFault></detail></soapenv:Fault>',
      ),
      'detail',
    )!.parent!;
    const err = faultFromSoap(fault, { method: 'ShutdownGuest', object: 'VirtualMachine:vm-42' });
    expect(err).toBeInstanceOf(VsphereFault);
    expect(err).toBeInstanceOf(FerryError);
    expect(err.faultType).toBe('InvalidPowerState');
    expect(err.category).toBe('invalid');
    expect(err.message).toBe(
      'vSphere ShutdownGuest on VirtualMachine:vm-42 failed with InvalidPowerState: (requestedState=poweredOn, existingState=poweredOff)',
    );
  });

  it('falls back to the detail element name without "Fault"', () => {
    const fault = parseXml(
      `<soapenv:Fault ${NS}><faultstring>Cannot complete login</faultstring><detail><InvalidLoginFault/></detail></soapenv:Fault>`,
    );
    const err = faultFromSoap(fault, { method: 'Login' });
    expect(err.faultType).toBe('InvalidLogin');
    expect(err.category).toBe('permission');
    expect(err.retryable).toBe(false);
  });

  it("types task errors (LocalizedMethodFault) and drops vcsim's Go type names", () => {
    const info = parseXml(
      `<error ${NS}><fault xsi:type="RequestCanceled"></fault><localizedMessage>*types.RequestCanceled</localizedMessage></error>`,
    );
    const err = faultFromLocalized(info, { method: 'RelocateVM_Task', object: 'VirtualMachine:vm-7' });
    expect(err.faultType).toBe('RequestCanceled');
    expect(err.message).toBe('vSphere RelocateVM_Task on VirtualMachine:vm-7 failed with RequestCanceled');
  });

  it('takes a session-scoped object not found (a view lost with its session) as transient, any other as not found', () => {
    const notFound = (obj: string) =>
      faultFromSoap(
        parseXml(
          `<soapenv:Fault ${NS}><faultstring>The object has already been deleted or has not been completely created</faultstring><detail>` +
            `<ManagedObjectNotFoundFault xmlns="urn:vim25" xsi:type="ManagedObjectNotFound"><obj type="ContainerView">${obj}</obj></ManagedObjectNotFoundFault></detail></soapenv:Fault>`,
        ),
        { method: 'RetrievePropertiesEx', object: 'PropertyCollector:propertyCollector' },
      );
    // chaos seed 12102: a session loss on RetrievePropertiesEx, the login again, then the old session's view.
    const view = notFound('session[c20495f1-548a-412e-9625-47c8abf1468d]f44276b6-0281-440c-87d0-b0b311d8f454');
    expect([view.category, view.retryable]).toEqual(['transient', true]);
    expect(notFound('vm-42').category).toBe('not-found');
    expect(faultCategory('ManagedObjectNotFound', '(obj=vm-42)')).toBe('not-found');
  });

  it('classifies fault types for retries', () => {
    expect(faultCategory('NotAuthenticated')).toBe('transient');
    expect(faultCategory('ManagedObjectNotFound')).toBe('not-found');
    expect(faultCategory('TaskInProgress')).toBe('locked');
    expect(faultCategory('HostCommunication')).toBe('transient');
    expect(faultCategory('SomethingNew')).toBe('invalid');
  });

  it('turns NotAuthenticated inside a PropertyCollector missingSet into the fault it means', () => {
    const response = parseXml(
      `<RetrievePropertiesExResponse ${NS}><returnval><objects><obj type="VirtualMachine">vm-1</obj>` +
        '<missingSet><path>name</path><fault><fault xsi:type="NotAuthenticated"><object type="VirtualMachine">vm-1</object>' +
        '<privilegeId>System.Read</privilegeId></fault></fault></missingSet></objects></returnval></RetrievePropertiesExResponse>',
    );
    expect(() => throwIfNotAuthenticated(response, 'RetrievePropertiesEx')).toThrow(
      expect.objectContaining({ faultType: 'NotAuthenticated', category: 'transient' }),
    );
    const other = parseXml(
      `<R ${NS}><returnval><objects><obj type="VirtualMachine">vm-1</obj><missingSet><path>bogus</path>` +
        '<fault><fault xsi:type="InvalidProperty"/></fault></missingSet></objects></returnval></R>',
    );
    expect(() => throwIfNotAuthenticated(other, 'RetrievePropertiesEx')).not.toThrow();
  });
});

import { element, methodCall, moRef, type MoRef, type XmlContent } from '../../../src/vsphere/envelope';
import { readObjects, retrieveProperties, throwIfNotAuthenticated } from '../../../src/vsphere/property-collector';
import { VsphereFault, type VsphereClient } from '../../../src/vsphere';
import { child } from '../../../src/vsphere/xml';
import { startTestVcsim, type TestVcsim } from '../../helpers/vcsim';

/**
 * Session expiry. vcsim v0.46.3 keeps `config.vmacore.soap.sessionTimeout` (UpdateOptions) as a setting
 * but never expires a session by it, so the tests end the session on the server the way an expiry
 * does: another session terminates it (SessionManager.TerminateSession), and the old cookie is dead.
 */
describe('vSphere session expiry and re-login against vcsim', () => {
  jest.setTimeout(60_000);
  let sim: TestVcsim;
  let admin: VsphereClient;
  let webMoid: string;

  beforeAll(async () => {
    sim = await startTestVcsim();
    admin = sim.client();
    const { inventory } = await admin.discover();
    webMoid = inventory.vms.find((v) => v.name === 'mig-web01')!.moid;
  });

  afterAll(() => sim?.stop());

  async function sessionKey(client: VsphereClient): Promise<string> {
    const { sessionManager, propertyCollector } = await client.session.serviceContent();
    const response = await client.session.call('RetrievePropertiesEx', propertyCollector, [
      element(
        'specSet',
        element('propSet', element('type', 'SessionManager'), element('pathSet', 'currentSession')),
        element('objectSet', moRef('obj', sessionManager)),
      ),
      element('options'),
    ]);
    const [content] = readObjects(child(response, 'returnval'));
    const key = content?.props.get('currentSession') && child(content.props.get('currentSession')!, 'key')?.text;
    if (!key) throw new Error('no session key');
    return key;
  }

  /** Ends `victim`'s session on the server, as an idle timeout would. */
  async function expire(victim: VsphereClient): Promise<void> {
    const key = await sessionKey(victim);
    const { sessionManager } = await admin.session.serviceContent();
    await admin.session.call('TerminateSession', sessionManager, [element('sessionId', key)]);
  }

  /** One raw call on the victim's transport, outside the session's re-login logic. */
  function raw(victim: VsphereClient, method: string, self: MoRef, ...params: XmlContent[]) {
    return victim.session.transport.call(method, methodCall(method, self, ...params), self);
  }

  it('sees a lost session as NotAuthenticated inside a PropertyCollector answer, and re-logs in transparently', async () => {
    const client = sim.client();
    expect((await client.readVm(webMoid)).name).toBe('mig-web01');
    expect(client.session.logins).toBe(1);
    await expire(client);

    // The server's answer really is the missingSet form (no SOAP fault) …
    const { propertyCollector } = await client.session.serviceContent();
    const answer = await raw(
      client,
      'RetrievePropertiesEx',
      propertyCollector,
      element(
        'specSet',
        element('propSet', element('type', 'VirtualMachine'), element('pathSet', 'name')),
        element('objectSet', moRef('obj', { type: 'VirtualMachine', value: webMoid })),
      ),
      element('options'),
    );
    expect(() => throwIfNotAuthenticated(answer, 'RetrievePropertiesEx')).toThrow(
      expect.objectContaining({ faultType: 'NotAuthenticated' }),
    );

    // … and the client logs in again and answers as if nothing happened.
    const vm = await client.readVm(webMoid);
    expect(vm.name).toBe('mig-web01');
    expect(vm.nics).toHaveLength(3);
    expect(client.session.logins).toBe(2);
  });

  it('sees a lost session as a NotAuthenticated SOAP fault elsewhere, and re-logs in transparently', async () => {
    const client = sim.client();
    await client.login();
    await expire(client);

    const { viewManager, rootFolder } = await client.session.serviceContent();
    const fault = await raw(
      client,
      'CreateContainerView',
      viewManager,
      moRef('container', rootFolder),
      element('type', 'VirtualMachine'),
      element('recursive', true),
    ).catch((e: unknown) => e);
    expect(fault).toBeInstanceOf(VsphereFault);
    expect(fault).toMatchObject({ faultType: 'NotAuthenticated', category: 'transient' });

    // Discovery starts with CreateContainerView: the fault form, re-login, then the whole retrieval.
    const result = await client.discover({ pageSize: 4 });
    expect(result.inventory.vms.find((v) => v.moid === webMoid)?.name).toBe('mig-web01');
    expect(client.session.logins).toBe(2);
  });

  it('starts a paged read of objects by reference over when the session is lost between pages', async () => {
    const client = sim.client();
    const { inventory } = await client.discover();
    const vms = inventory.vms.slice(0, 6);
    const spec = {
      propSet: [{ type: 'VirtualMachine', pathSet: ['name'] }],
      objectSet: vms.map((v) => ({ obj: { type: 'VirtualMachine', value: v.moid } })),
    };
    const call = client.session.call.bind(client.session);
    let expired = false;
    jest.spyOn(client.session, 'call').mockImplementation(async (method, ...rest) => {
      // The paging token dies with the session: lose it right before the first continuation.
      if (method === 'ContinueRetrievePropertiesEx' && !expired) {
        expired = true;
        await expire(client);
      }
      return call(method, ...rest);
    });
    const objects = await retrieveProperties(client.session, spec, { pageSize: 2 });
    expect(expired).toBe(true);
    expect(objects.map((o) => o.props.get('name')?.text).sort()).toEqual(vms.map((v) => v.name).sort());
    expect(client.session.logins).toBe(2);
  });

  it('re-logs in once per loss, also when several calls notice it at the same time', async () => {
    const client = sim.client();
    await client.login();
    await expire(client);
    const names = await Promise.all([client.readVm(webMoid), client.readVm(webMoid), client.readVm(webMoid)]);
    expect(names.map((v) => v.name)).toEqual(['mig-web01', 'mig-web01', 'mig-web01']);
    expect(client.session.logins).toBe(2);
  });

  it('gives up with a typed fault when the credentials stop working', async () => {
    const client = sim.client({ password: 'not-the-password' });
    const err = await client.readVm(webMoid).catch((e: unknown) => e);
    expect(err).toMatchObject({ faultType: 'InvalidLogin', category: 'permission' });
    expect(client.session.logins).toBe(0);
  });

  it('logs out on close: the session is gone on the server', async () => {
    const client = sim.client();
    await client.login();
    const key = await sessionKey(client);
    await client.close();
    const { sessionManager } = await admin.session.serviceContent();
    const err = await admin.session
      .call('TerminateSession', sessionManager, [element('sessionId', key)])
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ faultType: 'NotFound' });
  });
});

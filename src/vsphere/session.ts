import { element, methodCall, type MoRef, type XmlContent } from './envelope';
import { isNotAuthenticated, VsphereSessionRenewed } from './faults';
import { badAnswer, Fields } from './read';
import type { SoapTransport } from './transport';
import { child, type XmlElement } from './xml';

export const SERVICE_INSTANCE: MoRef = { type: 'ServiceInstance', value: 'ServiceInstance' };

/** The parts of ServiceContent ferry uses. */
export interface ServiceContent {
  rootFolder: MoRef;
  propertyCollector: MoRef;
  viewManager: MoRef;
  searchIndex: MoRef;
  sessionManager: MoRef;
  setting?: MoRef;
  about: { fullName: string; apiVersion: string; apiType: string; instanceUuid?: string };
}

export interface CallOptions {
  /**
   * The call refers to objects that live only as long as the session (views, paging tokens). After a
   * re-login it cannot simply be repeated: VsphereSessionRenewed tells the caller to restart.
   */
  sessionBound?: boolean;
  /** Looks at a successful answer; may throw NotAuthenticated (a PropertyCollector `missingSet`). */
  inspect?: (response: XmlElement) => void;
}

export interface Credentials {
  user: string;
  password: string;
}

function readServiceContent(response: XmlElement): ServiceContent {
  const f = new Fields(child(response, 'returnval') ?? response, 'ServiceContent');
  const ref = (name: string) => {
    const r = f.moRef(name);
    if (!r) throw badAnswer('ServiceContent', `${name} is missing`);
    return r;
  };
  const about = f.requiredObject('about');
  return {
    rootFolder: ref('rootFolder'),
    propertyCollector: ref('propertyCollector'),
    viewManager: ref('viewManager'),
    searchIndex: ref('searchIndex'),
    sessionManager: ref('sessionManager'),
    setting: f.moRef('setting'),
    about: {
      fullName: about.requiredString('fullName'),
      apiVersion: about.requiredString('apiVersion'),
      apiType: about.string('apiType') ?? '',
      instanceUuid: about.string('instanceUuid'),
    },
  };
}

/**
 * A logged-in vim25 session. Logs in on first use, and again when the server says the session is gone
 * (a NotAuthenticated fault, or NotAuthenticated in a PropertyCollector `missingSet`), up to
 * RELOGINS_PER_CALL times in one call: calls that do not depend on session-bound objects are then
 * repeated transparently.
 */
const RELOGINS_PER_CALL = 3;

export class VimSession {
  private content: ServiceContent | undefined;
  private login: Promise<void> | undefined;
  /** Increases with every login; a call that failed under an older generation just retries. */
  private generation = 0;
  private loggedIn = false;
  /** Logins so far (the first, and each transparent re-login). */
  logins = 0;

  /** An ES private field: util.inspect of the session (or of the client holding it) never shows the password. */
  readonly #credentials: Credentials;

  constructor(
    readonly transport: SoapTransport,
    credentials: Credentials,
  ) {
    this.#credentials = credentials;
  }

  /** ServiceContent, read once (needs no login). */
  async serviceContent(): Promise<ServiceContent> {
    if (!this.content) {
      const response = await this.transport.call(
        'RetrieveServiceContent',
        methodCall('RetrieveServiceContent', SERVICE_INSTANCE),
        SERVICE_INSTANCE,
      );
      this.content = readServiceContent(response);
      this.transport.apiVersion = this.content.about.apiVersion;
    }
    return this.content;
  }

  /** Logs in unless already logged in. */
  async ensureLoggedIn(): Promise<void> {
    if (this.loggedIn) return;
    await this.relogin(this.generation);
  }

  private relogin(seenGeneration: number): Promise<void> {
    if (this.generation !== seenGeneration && this.loggedIn) return Promise.resolve();
    this.login ??= (async () => {
      try {
        const content = await this.serviceContent();
        // A request that still carries a cookie makes vcsim refuse the login (and the old one is dead anyway).
        this.transport.dropSession();
        this.loggedIn = false;
        const self = content.sessionManager;
        await this.transport.call(
          'Login',
          methodCall(
            'Login',
            self,
            element('userName', this.#credentials.user),
            element('password', this.#credentials.password),
          ),
          self,
        );
        this.generation++;
        this.logins++;
        this.loggedIn = true;
      } finally {
        this.login = undefined;
      }
    })();
    return this.login;
  }

  /** Calls a method on `self` with parameters in WSDL order; re-logs in once if the session is gone. */
  async call(method: string, self: MoRef, params: XmlContent[] = [], options: CallOptions = {}): Promise<XmlElement> {
    await this.ensureLoggedIn();
    for (let relogins = 0; ; relogins++) {
      const generation = this.generation;
      try {
        return await this.attempt(method, self, params, options);
      } catch (err) {
        if (!isNotAuthenticated(err) || relogins === RELOGINS_PER_CALL) throw err;
        await this.relogin(generation);
        if (options.sessionBound) throw new VsphereSessionRenewed(method);
      }
    }
  }

  private async attempt(method: string, self: MoRef, params: XmlContent[], options: CallOptions): Promise<XmlElement> {
    const response = await this.transport.call(method, methodCall(method, self, ...params), self);
    options.inspect?.(response);
    return response;
  }

  /**
   * Runs an operation that creates session-bound objects; if the session is renewed in the middle, runs
   * it once more from the start.
   */
  async restartable<T>(operation: () => Promise<T>): Promise<T> {
    try {
      return await operation();
    } catch (err) {
      if (!(err instanceof VsphereSessionRenewed)) throw err;
      return operation();
    }
  }

  /** Ends the session on the server (best effort) and closes the connections. */
  async close(): Promise<void> {
    try {
      if (this.loggedIn && this.content) {
        await this.transport.call(
          'Logout',
          methodCall('Logout', this.content.sessionManager),
          this.content.sessionManager,
        );
      }
    } catch {
      // The session may already be gone; nothing to undo.
    } finally {
      this.loggedIn = false;
      this.transport.dropSession();
      await this.transport.close();
    }
  }
}

import { element, moRef, optional, typed, type MoRef, type Xml } from './envelope';
import { faultTypeOf, VsphereFault } from './faults';
import { asMoRef, badAnswer } from './read';
import type { VimSession } from './session';
import { child, children, pathOf, type XmlElement } from './xml';

/** One object of a PropertyCollector answer: its properties by path, and the ones it could not read. */
export interface ObjectContent {
  obj: MoRef;
  /** Property path → the `val` element (absent when the property is unset). */
  props: Map<string, XmlElement>;
  missing: Array<{ path: string; faultType: string }>;
}

export interface PropertySpec {
  type: string;
  pathSet: readonly string[];
}

export interface ObjectSpec {
  obj: MoRef;
  /** Leave the starting object itself out of the result (a view, for instance). */
  skip?: boolean;
  selectSet?: Xml[];
}

export interface FilterSpec {
  propSet: readonly PropertySpec[];
  objectSet: readonly ObjectSpec[];
}

/** Follow `path` of objects of `type`; `selectSet` continues from there (by nested spec or by name). */
export function traversalSpec(name: string, type: string, path: string, selectSet: Xml[] = [], skip = false): Xml {
  // TraversalSpec: name (from SelectionSpec), type, path, skip, selectSet.
  return typed(
    'selectSet',
    'TraversalSpec',
    element('name', name),
    element('type', type),
    element('path', path),
    element('skip', skip),
    selectSet,
  );
}

/** A reference to a TraversalSpec by name (for recursion, e.g. up a folder chain). */
export function selectionByName(name: string): Xml {
  return typed('selectSet', 'SelectionSpec', element('name', name));
}

/**
 * Up the inventory from a datacenter or folder to the root: `dcParent` and `folderParent`, which a
 * spec starting below (a VM's parent) continues with by name. Folder and datacenter names make paths.
 */
export function ancestorSpecs(): Xml[] {
  return [
    traversalSpec('dcParent', 'Datacenter', 'parent', [selectionByName('folderParent')]),
    traversalSpec('folderParent', 'Folder', 'parent', [selectionByName('folderParent'), selectionByName('dcParent')]),
  ];
}

function filterSpecXml(spec: FilterSpec): Xml {
  return element(
    'specSet',
    spec.propSet.map((p) =>
      element(
        'propSet',
        element('type', p.type),
        element('all', false),
        p.pathSet.map((path) => element('pathSet', path)),
      ),
    ),
    spec.objectSet.map((o) => element('objectSet', moRef('obj', o.obj), optional('skip', o.skip), o.selectSet ?? [])),
  );
}

/** The fault type of a `missingSet` entry (`<missingSet><fault><fault xsi:type=…>`: LocalizedMethodFault around the fault). */
function missingFaultType(missing: XmlElement): string | undefined {
  const fault = child(child(missing, 'fault') ?? missing, 'fault');
  return fault ? faultTypeOf(fault) : undefined;
}

/** PropertyCollector answers report a lost session per property: turn that into the fault it means. */
export function throwIfNotAuthenticated(response: XmlElement, method: string): void {
  for (const objects of children(child(response, 'returnval') ?? response, 'objects')) {
    for (const missing of children(objects, 'missingSet')) {
      if (missingFaultType(missing) === 'NotAuthenticated') {
        throw new VsphereFault('NotAuthenticated', 'the session is no longer valid (reported in missingSet)', {
          method,
        });
      }
    }
  }
}

/** `RetrieveResult` → its objects. */
export function readObjects(result: XmlElement | undefined): ObjectContent[] {
  if (!result) return [];
  return children(result, 'objects').map((o) => {
    const objElement = child(o, 'obj');
    if (!objElement) throw badAnswer(pathOf(o), 'an ObjectContent without obj');
    const props = new Map<string, XmlElement>();
    for (const p of children(o, 'propSet')) {
      const name = child(p, 'name')?.text;
      const val = child(p, 'val');
      if (name === undefined) throw badAnswer(pathOf(p), 'a property without a name');
      // An unset property may come as a propSet without val (vcsim's later pages) or with xsi:nil.
      if (val && !val.nil) props.set(name, val);
    }
    const missing = children(o, 'missingSet').map((m) => ({
      path: child(m, 'path')?.text ?? '',
      faultType: missingFaultType(m) ?? 'UnknownFault',
    }));
    return { obj: asMoRef(objElement, pathOf(objElement)), props, missing };
  });
}

export interface RetrieveOptions {
  /** Objects per page (RetrievePropertiesEx maxObjects); the server may send fewer. */
  pageSize?: number;
  /** The object set starts at session-bound objects (views). */
  sessionBound?: boolean;
}

export interface RetrieveResult {
  objects: ObjectContent[];
  /** Answers it took (RetrievePropertiesEx + each ContinueRetrievePropertiesEx). */
  pages: number;
}

/**
 * One retrieval: RetrievePropertiesEx, then ContinueRetrievePropertiesEx for as long as the server
 * hands back a token (vCenter may page even without maxObjects).
 */
export async function retrieveAll(
  session: VimSession,
  specs: readonly FilterSpec[],
  options: RetrieveOptions = {},
): Promise<RetrieveResult> {
  const { propertyCollector } = await session.serviceContent();
  const inspect = (response: XmlElement) => throwIfNotAuthenticated(response, 'RetrievePropertiesEx');
  const first = await session.call(
    'RetrievePropertiesEx',
    propertyCollector,
    [specs.map(filterSpecXml), element('options', optional('maxObjects', options.pageSize))],
    { sessionBound: options.sessionBound, inspect },
  );
  let result = child(first, 'returnval');
  const objects = readObjects(result);
  let pages = 1;
  let token = result ? child(result, 'token')?.text : undefined;
  try {
    while (token) {
      const next = await session.call('ContinueRetrievePropertiesEx', propertyCollector, [element('token', token)], {
        sessionBound: true,
        inspect,
      });
      pages++;
      result = child(next, 'returnval');
      objects.push(...readObjects(result));
      token = result ? child(result, 'token')?.text : undefined;
    }
  } catch (err) {
    if (token) {
      const abandoned = token;
      await session
        .call('CancelRetrievePropertiesEx', propertyCollector, [element('token', abandoned)], { sessionBound: true })
        .catch(() => undefined);
    }
    throw err;
  }
  return { objects, pages };
}

/**
 * Properties of objects given by reference (no views): safe to repeat after a re-login. A session lost
 * between pages (the paging token dies with it) starts the retrieval over.
 */
export async function retrieveProperties(
  session: VimSession,
  spec: FilterSpec,
  options: Pick<RetrieveOptions, 'pageSize'> = {},
): Promise<ObjectContent[]> {
  return (await session.restartable(() => retrieveAll(session, [spec], options))).objects;
}

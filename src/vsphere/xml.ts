import { SaxesParser, type SaxesAttributeNS, type SaxesTagNS } from 'saxes';

/** The namespace of `xsi:type`, whatever prefix a server binds it to (`xsi`, `XMLSchema-instance`, `_XMLSchema-instance`). */
export const XSI_NS = 'http://www.w3.org/2001/XMLSchema-instance';

/**
 * One element of a vim25 answer. Namespaces are resolved, not stripped: `xsiType` is read from the
 * XMLSchema-instance namespace whatever its prefix, and a MoRef's own `type` attribute stays apart in
 * `attrs`. Repeated elements stay repeated children (no collapsing of one-element arrays), and values
 * stay strings until a reader converts them by what the schema says they are.
 */
export interface XmlElement {
  /** Local name, without prefix (`Envelope`, `returnval`, `propSet`). */
  name: string;
  /** Namespace URI ('' for none). */
  uri: string;
  /** Attributes in no namespace, by name (a MoRef's `type`). */
  attrs: Record<string, string>;
  /** Local part of the `xsi:type` QName (`VirtualDisk`, `int`), if present. */
  xsiType?: string;
  /** `xsi:nil="true"`. */
  nil: boolean;
  children: XmlElement[];
  /** Text content of a leaf element (empty for elements with children). */
  text: string;
  parent?: XmlElement;
}

export class XmlSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'XmlSyntaxError';
  }
}

function localPart(qname: string): string {
  const colon = qname.indexOf(':');
  return colon === -1 ? qname : qname.slice(colon + 1);
}

/** Parses a whole document into an element tree; throws XmlSyntaxError for anything not well-formed. */
export function parseXml(text: string): XmlElement {
  const parser = new SaxesParser({ xmlns: true, position: true });
  let root: XmlElement | undefined;
  let current: XmlElement | undefined;
  let error: Error | undefined;

  parser.on('error', (err) => {
    error ??= err;
  });
  parser.on('opentag', (tag: SaxesTagNS) => {
    const attrs: Record<string, string> = {};
    let xsiType: string | undefined;
    let nil = false;
    for (const attr of Object.values(tag.attributes) as SaxesAttributeNS[]) {
      if (attr.uri === XSI_NS) {
        if (attr.local === 'type') xsiType = localPart(attr.value);
        else if (attr.local === 'nil') nil = attr.value === 'true' || attr.value === '1';
      } else if (attr.uri === '' && attr.prefix === '') {
        attrs[attr.local] = attr.value;
      }
    }
    const element: XmlElement = {
      name: tag.local,
      uri: tag.uri,
      attrs,
      xsiType,
      nil,
      children: [],
      text: '',
      parent: current,
    };
    if (current) current.children.push(element);
    else root = element;
    current = element;
  });
  parser.on('text', (text: string) => {
    if (current) current.text += text;
  });
  parser.on('cdata', (text: string) => {
    if (current) current.text += text;
  });
  parser.on('closetag', () => {
    if (current && current.children.length > 0) current.text = '';
    current = current?.parent;
  });

  try {
    parser.write(text).close();
  } catch (err) {
    error ??= err as Error;
  }
  if (error) throw new XmlSyntaxError(`not well-formed XML: ${error.message}`);
  if (!root) throw new XmlSyntaxError('empty document');
  return root;
}

export function child(element: XmlElement, name: string): XmlElement | undefined {
  return element.children.find((c) => c.name === name);
}

export function children(element: XmlElement, name: string): XmlElement[] {
  return element.children.filter((c) => c.name === name);
}

/** Where an element is, for error messages: `Body/RetrievePropertiesExResponse/returnval/objects[3]/propSet[2]`. */
export function pathOf(element: XmlElement): string {
  const parts: string[] = [];
  for (let e: XmlElement | undefined = element; e; e = e.parent) {
    const siblings = e.parent ? children(e.parent, e.name) : [e];
    parts.push(siblings.length > 1 ? `${e.name}[${siblings.indexOf(e) + 1}]` : e.name);
  }
  return parts.reverse().join('/');
}

/**
 * Building vim25 requests. Every text and attribute value is escaped on the way in; markup can only be
 * made by these functions, so a name or password can never inject elements. Callers list children in
 * WSDL order (vCenter rejects out-of-order elements; vcsim does not notice).
 */

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

export function escapeXml(value: string): string {
  // Characters XML 1.0 cannot carry at all are refused rather than silently dropped.
  // eslint-disable-next-line no-control-regex
  const bad = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/.exec(value);
  if (bad)
    throw new RangeError(
      `cannot send the control character U+${bad[0].charCodeAt(0).toString(16).padStart(4, '0')} in XML`,
    );
  return value.replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

/** A fragment of markup built by this module (never from outside strings). */
export class Xml {
  private constructor(readonly markup: string) {}
  /** Only for this module and the fixed envelope: never pass outside text here. */
  static trusted(markup: string): Xml {
    return new Xml(markup);
  }
}

export type XmlContent = Xml | string | number | boolean | undefined | null | XmlContent[];

function render(content: XmlContent): string {
  if (content === undefined || content === null) return '';
  if (content instanceof Xml) return content.markup;
  if (Array.isArray(content)) return content.map(render).join('');
  if (typeof content === 'number' && !Number.isFinite(content))
    throw new RangeError(`cannot send the number ${content}`);
  return escapeXml(String(content));
}

const NAME = /^[A-Za-z_][A-Za-z0-9_.-]*(:[A-Za-z_][A-Za-z0-9_.-]*)?$/;

/** `<name attrs…>content</name>`. Undefined attributes are left out. */
export function elementWith(name: string, attrs: Record<string, string | undefined>, ...content: XmlContent[]): Xml {
  if (!NAME.test(name)) throw new RangeError(`not an XML element name: ${name}`);
  let open = name;
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined) continue;
    if (!NAME.test(key)) throw new RangeError(`not an XML attribute name: ${key}`);
    open += ` ${key}="${escapeXml(value)}"`;
  }
  return Xml.trusted(`<${open}>${render(content)}</${name}>`);
}

/** `<name>content</name>`; an undefined value gives nothing (an unset optional field). */
export function element(name: string, ...content: XmlContent[]): Xml {
  return elementWith(name, {}, ...content);
}

/** An optional leaf: nothing when the value is undefined. */
export function optional(name: string, value: string | number | boolean | undefined): Xml | undefined {
  return value === undefined ? undefined : element(name, value);
}

/** A value of a polymorphic field: `<name xsi:type="Type">…</name>`. */
export function typed(name: string, xsiType: string, ...content: XmlContent[]): Xml {
  return elementWith(name, { 'xsi:type': xsiType }, ...content);
}

export interface MoRef {
  type: string;
  value: string;
}

/** A managed object reference: `<name type="VirtualMachine">vm-42</name>`. */
export function moRef(name: string, ref: MoRef): Xml {
  return elementWith(name, { type: ref.type }, ref.value);
}

/** A method call: `<Method xmlns="urn:vim25"><_this type="…">…</_this>…</Method>`. */
export function methodCall(method: string, self: MoRef, ...params: XmlContent[]): Xml {
  return elementWith(method, { xmlns: 'urn:vim25' }, moRef('_this', self), ...params);
}

/** The SOAP envelope around one method call. */
export function soapEnvelope(body: Xml): string {
  return (
    '<?xml version="1.0" encoding="UTF-8"?>' +
    '<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" ' +
    'xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">' +
    `<soapenv:Body>${body.markup}</soapenv:Body></soapenv:Envelope>`
  );
}

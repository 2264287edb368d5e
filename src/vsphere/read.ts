import type { MoRef } from './envelope';
import { VsphereResponseError } from './faults';
import { child, children, type XmlElement } from './xml';

/**
 * Typed reads of vim25 values. Nothing is converted by guesswork: a field is read as the schema says it
 * is (int, long, boolean, string, MoRef), and a value that does not fit is an error naming where it was
 * (`VirtualMachine vm-42 config.hardware.numCPU`) and what it held.
 */
export function badAnswer(where: string, problem: string): VsphereResponseError {
  return new VsphereResponseError(`unexpected vSphere answer at ${where}: ${problem}`, 'invalid', {
    details: { where },
  });
}

const INTEGER = /^[+-]?\d+$/;

export function asInt(element: XmlElement, where: string): number {
  const text = element.text.trim();
  if (!INTEGER.test(text)) throw badAnswer(where, `expected a whole number, got "${text}"`);
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw badAnswer(where, `the number ${text} is too large to handle exactly`);
  return value;
}

export function asBool(element: XmlElement, where: string): boolean {
  const text = element.text.trim();
  if (text === 'true' || text === '1') return true;
  if (text === 'false' || text === '0') return false;
  throw badAnswer(where, `expected true or false, got "${text}"`);
}

export function asMoRef(element: XmlElement, where: string): MoRef {
  const type = element.attrs.type;
  const value = element.text.trim();
  if (!type || !value) throw badAnswer(where, 'expected a managed object reference (type attribute and id)');
  return { type, value };
}

/** Reads fields of one data object, naming the object in every error. */
export class Fields {
  constructor(
    readonly element: XmlElement,
    readonly where: string,
  ) {}

  private at(name: string): string {
    return `${this.where}.${name}`;
  }

  has(name: string): boolean {
    return child(this.element, name) !== undefined;
  }

  /** A nested data object. */
  object(name: string): Fields | undefined {
    const e = child(this.element, name);
    return e ? new Fields(e, this.at(name)) : undefined;
  }

  requiredObject(name: string): Fields {
    const f = this.object(name);
    if (!f) throw badAnswer(this.where, `${name} is missing`);
    return f;
  }

  /** Repeated nested objects (a bare repeat in vim25: one element is still an array of one). */
  objects(name: string): Fields[] {
    return children(this.element, name).map((e, i) => new Fields(e, `${this.at(name)}[${i}]`));
  }

  string(name: string): string | undefined {
    return child(this.element, name)?.text;
  }

  requiredString(name: string): string {
    const value = this.string(name);
    if (value === undefined) throw badAnswer(this.where, `${name} is missing`);
    return value;
  }

  strings(name: string): string[] {
    return children(this.element, name).map((e) => e.text);
  }

  int(name: string): number | undefined {
    const e = child(this.element, name);
    return e ? asInt(e, this.at(name)) : undefined;
  }

  requiredInt(name: string): number {
    const value = this.int(name);
    if (value === undefined) throw badAnswer(this.where, `${name} is missing`);
    return value;
  }

  bool(name: string): boolean | undefined {
    const e = child(this.element, name);
    return e ? asBool(e, this.at(name)) : undefined;
  }

  moRef(name: string): MoRef | undefined {
    const e = child(this.element, name);
    return e ? asMoRef(e, this.at(name)) : undefined;
  }

  /** The xsi:type of this object, required where the field is polymorphic. */
  type(): string {
    const t = this.element.xsiType;
    if (!t) throw badAnswer(this.where, 'the polymorphic value has no xsi:type');
    return t;
  }
}

import { ENV_BINDINGS } from './env';

/**
 * The message for a key that has no value: zod's own ("expected string, received undefined") hides
 * where the value should come from, so this names the file or variable that would set it.
 */
export function missingValueMessage(
  pathKey: string,
  reason: string | undefined,
  source: string,
  createdBy: ReadonlyMap<string, string>,
): string {
  const binding = ENV_BINDINGS.find((b) => b.path.join('.') === pathKey);
  const why = reason ? ` (${reason})` : '';
  if (binding?.secret) return `${pathKey}: missing${why}: set ${binding.env} in the worker's environment`;
  // With no file at all (source "defaults"), the place to write the value is a ferry.yaml.
  const file = source === 'defaults' ? 'ferry.yaml' : source;
  const where = binding ? `set it in ${file} or ${binding.env}` : `set it in ${file}`;
  const section = pathKey.split('.')[0]!;
  const creator = createdBy.get(section);
  const note = creator ? `; the ${section} section exists only because ${creator} is set` : '';
  return `${pathKey}: required${why}: ${where}${note}`;
}

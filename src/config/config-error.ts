/** An invalid ferry configuration. Its own module, so the CLI can tell it apart without loading the schema (zod, yaml). */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid ferry configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

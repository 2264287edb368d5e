/** A wave's status answers a page of VM rows, never every VM (no zod here: `ferry --help` reads these). */
export const WAVE_ROWS_MAX = 200;
export const WAVE_ROWS_DEFAULT = 25;

/** The parser lives in src/domain (the change plan reads VM configs too); the client and the simulator import it from here. */
export * from '../domain/pve-property-string';

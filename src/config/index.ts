export { ConfigError, loadConfig, parseConfig } from './load';
export { ENV_BINDINGS } from './env';
export * from './schema';

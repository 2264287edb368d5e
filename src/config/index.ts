export {
  ConfigError,
  loadConfig,
  loadScopedConfig,
  parseConfig,
  OPTIONAL_SECTIONS,
  type ConfigScope,
  type OptionalSection,
  type WorkflowNames,
  type ConfigDefaults,
  type TemporalAddressSource,
} from './load';
export { ENV_BINDINGS } from './env';
export * from './schema';
export { migrationSettings } from './migration-settings';
export { parseListenAddress, webhookSecret, type ListenAddress } from './netbox-webhook';

// The test bundle: every production workflow plus probes that exercise shared workflow helpers.
export * from '../../workflows';
export * from './permit-probes';
export * from './retry-probe';
export * from './window-probe';
export * from './spin-probe';

export * from './allocation';
export * from './hardware';
export * from './settings';
export * from './spec';
export * from './status';
export * from './teardown';
export * from './placement';
export * from './record-hardware';

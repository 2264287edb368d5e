export * from './eta';
export * from './progress';
export * from './wave-summary';
export * from './view';
export * from './visibility-wave';

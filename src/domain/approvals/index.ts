export * from './stable-json';
export * from './ssh-signature';
export * from './statement';
export * from './plan-digest';
export * from './check';
export { fromBase64, toBase64 } from './bytes';

export * from './types';
export * from './match';
export * from './units';
export * from './capacity';
export * from './place';
export * from './recheck';
export * from './from-record';

export * from './payload';
export * from './decision';

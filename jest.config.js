/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: '<rootDir>/test/harness/environment.js',
  setupFilesAfterEnv: ['<rootDir>/test/harness/track-workers.ts'],
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    // Type checking is `npm run typecheck`'s job; jest only transpiles.
    '^.+\\.ts$': ['ts-jest', { diagnostics: false }],
  },
  globalSetup: '<rootDir>/test/harness/global-setup.ts',
  globalTeardown: '<rootDir>/test/harness/global-teardown.ts',
  testTimeout: 60_000,
  // Order matters only for wall time: fast pure tests first.
  testSequencer: '<rootDir>/test/harness/sequencer.js',
  reporters: ['default', '<rootDir>/test/harness/slowest-suites.js'],
};

// @ts-check
import { builtinModules } from 'node:module';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import ferry from './eslint/stack-order.mjs';

// Workflow code is replayed deterministically inside Temporal's sandbox: no I/O, no Node built-ins,
// and nothing from src/ except the pure domain rules.
const workflowRestrictions = {
  paths: [
    ...builtinModules.map((name) => ({ name, message: 'Workflow code must be deterministic: no Node built-ins.' })),
    { name: 'undici', message: 'Workflow code does no I/O: call an activity.' },
    { name: '@temporalio/client', message: 'Workflows use @temporalio/workflow only.' },
    { name: '@temporalio/worker', message: 'Workflows use @temporalio/workflow only.' },
    { name: '@temporalio/activity', message: 'Workflows use @temporalio/workflow only.' },
  ],
  patterns: [
    { group: ['node:*'], message: 'Workflow code must be deterministic: no Node built-ins.' },
    { group: ['undici/*'], message: 'Workflow code does no I/O: call an activity.' },
    {
      group: ['**/src/**', '!**/src/domain', '!**/src/domain/**'],
      message: 'Workflows may import only src/domain (pure rules and the message definitions) from src/.',
    },
    {
      group: ['**/activities', '**/activities/**'],
      allowTypeImports: true,
      message: 'Workflows import activities as types only (proxyActivities<typeof activities>).',
    },
  ],
};

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', '.tools/', '.state/', 'coverage/', 'bin/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: { ...globals.node },
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
    },
  },
  {
    // A command loads its heavy modules (Temporal client, lab, vSphere, config schema) when it runs, so
    // `ferry --help` stays fast: a synchronous require typed by import(), which tsc's CommonJS output,
    // tsx and ts-jest all run alike (a dynamic import() stays ESM under module node16, and jest refuses it).
    files: ['cli/commands/*.ts', 'cli/status-view/watch.ts', 'src/config/approvers.ts'],
    rules: {
      '@typescript-eslint/no-require-imports': 'off',
      '@typescript-eslint/consistent-type-imports': [
        'error',
        { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false },
      ],
    },
  },
  {
    files: ['**/*.ts'],
    plugins: { ferry },
    rules: { 'ferry/stack-order': ['error', { root: import.meta.dirname }] },
  },
  {
    // Signal, query and update names are spelled once, in src/domain/messages.ts; everyone else uses its definitions.
    files: ['**/*.ts'],
    ignores: ['src/domain/messages.ts', 'test/workflow-bundle/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: 'CallExpression[callee.name=/^define(Signal|Query|Update)$/]',
          message:
            'Define signals, queries and updates in src/domain/messages.ts, shared by workflows and their callers.',
        },
        {
          selector:
            "CallExpression[callee.property.name=/^(signal|query|executeUpdate|startUpdate|getUpdateHandle)$/][arguments.0.type='Literal']",
          message: 'Pass the definition from src/domain/messages.ts, not its name as a string.',
        },
      ],
    },
  },
  {
    files: ['workflows/**/*.ts', 'src/domain/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', workflowRestrictions],
      // Its order depends on the worker's locale and ICU data, so a replay could differ.
      'no-restricted-properties': [
        'error',
        {
          property: 'localeCompare',
          message: 'Deterministic code orders strings with compareCodeUnits (src/domain/order).',
        },
      ],
    },
  },
  {
    // The domain rules, workflows and activities are read more than written: a function longer than a screen
    // is split into named steps (an activity factory into one factory per concern, spread in an index).
    files: ['src/domain/**/*.ts', 'workflows/**/*.ts', 'activities/**/*.ts'],
    rules: {
      'max-lines-per-function': ['error', { max: 60, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    files: ['**/*.mjs', '**/*.js', '**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);

/** Jest projects: unit (pure, with fakes), integration (one service in-process against real Kafka and the MongoDB-wire server), e2e (the running system through HTTP only). */
const { laneIgnorePatterns } = require('./scripts/test-lanes.cjs');

/** `npm test` runs its lanes (scripts/test-lanes.cjs) as two jest runs; without a lane, every file. */
const ignored = ['/node_modules/', '/dist/', ...laneIgnorePatterns(process.env.POSTBUS_TEST_LANE)];
const transform = {
  '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } }],
};
const moduleNameMapper = {
  // The SDK is ESM source with NodeNext-style '.js' specifiers; under jest it runs as its TypeScript.
  '^@postbus/sdk$': '<rootDir>/sdks/typescript/src/index.ts',
  '^(\\.{1,2}/.*)\\.js$': '$1',
  '^@postbus/([a-z-]+)$': '<rootDir>/libs/$1/src',
  // The contracts' value lists (a subpath export), as their TypeScript.
  '^@postbus/contracts/values$': '<rootDir>/libs/contracts/src/values.ts',
  // The bus's error types (a subpath export without kafkajs, for services' domain code), as their TypeScript.
  '^@postbus/bus/errors$': '<rootDir>/libs/bus/src/errors.ts',
  // The database and HTTP libraries' pure helpers (subpath exports without mongoose or express, for services' domain code).
  '^@postbus/db/(group-commit|in-parallel|keyed-serializer)$': '<rootDir>/libs/db/src/$1.ts',
  '^@postbus/http/(cursor|every|loop-turns)$': '<rootDir>/libs/http/src/$1.ts',
  '^@postbus/http/address-policy$': '<rootDir>/libs/http/src/outbound/address-policy.ts',
  // Test fakes without infrastructure, for unit tests.
  '^@postbus/testing/fakes$': '<rootDir>/libs/testing/src/fakes.ts',
  // The status service's modules as its preview and fixtures (services/status/preview) import them (its package.json "imports"), as their TypeScript.
  '^#status/(.*)$': '<rootDir>/services/status/src/$1',
};
const common = {
  transform,
  moduleNameMapper,
  // Node's, and it stops the system a worker shares between end-to-end files before any other file.
  testEnvironment: '<rootDir>/scripts/test-environment.cjs',
  // The shared system was made in the file that started it, and its code keeps using that file's
  // globals (timers, promises) after the file ends. Jest sets this once per process, by the first
  // file a worker runs, so every project that may share a worker with an end-to-end file says it.
  testEnvironmentOptions: { globalsCleanup: 'off' },
  rootDir: __dirname,
  testPathIgnorePatterns: ignored,
};

/** The admin panel's components: TSX with React's automatic runtime, in a browser-like DOM (jsdom). */
const adminPanel = {
  displayName: 'admin',
  rootDir: __dirname,
  testEnvironment: 'jsdom',
  testMatch: ['<rootDir>/services/admin/src/**/*.test.tsx'],
  setupFilesAfterEnv: ['<rootDir>/services/admin/src/test-setup.ts'],
  testPathIgnorePatterns: ignored,
  // As the panel's bundler reads it: the contracts' value lists from their source.
  moduleNameMapper: { '^@postbus/contracts/values$': '<rootDir>/libs/contracts/src/values.ts' },
  transform: {
    '^.+\\.tsx?$': [
      '@swc/jest',
      {
        jsc: { parser: { syntax: 'typescript', tsx: true }, transform: { react: { runtime: 'automatic' } }, target: 'es2022' },
        module: { type: 'commonjs' },
      },
    ],
  },
};

module.exports = {
  // Integration and e2e tests wait on a real broker and database; unit tests finish in milliseconds anyway.
  testTimeout: 60_000,
  // The plain closing line "N passed, N failed" that CI and people read.
  reporters: ['default', '<rootDir>/scripts/jest-summary-reporter.cjs'],
  // The longest files first, so that the concurrent lane's workers finish together.
  testSequencer: '<rootDir>/scripts/test-sequencer.cjs',
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: [
        '<rootDir>/libs/*/src/**/*.test.ts',
        '<rootDir>/services/*/src/**/*.test.ts',
        '<rootDir>/sdks/typescript/test/**/*.test.ts',
        '<rootDir>/scripts/src/**/*.test.ts',
        '<rootDir>/bench/src/**/*.test.ts',
      ],
    },
    adminPanel,
    {
      ...common,
      displayName: 'integration',
      testMatch: ['<rootDir>/libs/*/test/**/*.test.ts', '<rootDir>/services/*/test/**/*.test.ts'],
      globalSetup: '<rootDir>/libs/testing/src/global-setup.ts',
      globalTeardown: '<rootDir>/libs/testing/src/global-teardown.ts',
    },
    // The deployment files (docker-compose.yml, deploy/k8s rendered by kustomize) against the services' schemas: no infrastructure.
    { ...common, displayName: 'deploy', testMatch: ['<rootDir>/deploy/test/**/*.test.ts'] },
    {
      ...common,
      displayName: 'e2e',
      testMatch: ['<rootDir>/e2e/**/*.test.ts'],
      globalSetup: '<rootDir>/libs/testing/src/global-setup.ts',
      globalTeardown: '<rootDir>/libs/testing/src/global-teardown.ts',
    },
  ],
};

/** @type {import('jest').Config} */
module.exports = {
  // Node's environment, plus a record of the files that leave a socket, server or timer open
  // (test/support/handle-audit-environment.js): such a file makes jest force-exit its worker.
  testEnvironment: "<rootDir>/test/support/handle-audit-environment.js",
  roots: ["<rootDir>/test"],
  testMatch: ["**/*.test.ts"],
  // The examples of README.md and docs/ run in a suite of their own: `npm run test:docs`
  // (jest.docs.config.js), on the demo database as a user runs them, once per CI run.
  testPathIgnorePatterns: ["/node_modules/", "<rootDir>/test/docs/"],
  transform: { "^.+\\.ts$": ["ts-jest", { tsconfig: "tsconfig.jest.json" }] },
  setupFiles: ["<rootDir>/test/support/setup-env.ts"],
  // The global setup gives the run its temporary folder, kills what an interrupted run left, and
  // builds the service once when a selected file starts it (the sequencer tells it which);
  // the teardown kills whatever a test left running (test/support/processes.ts) and removes the
  // run's folders.
  testSequencer: "<rootDir>/test/support/test-sequencer.js",
  globalSetup: "<rootDir>/test/support/global-setup.ts",
  globalTeardown: "<rootDir>/test/support/global-teardown.ts",
  // Generous, for a busy machine: no test asserts a time through it (figures go to BENCHMARKS.md).
  testTimeout: 60000,
  // Each test file gets its own MariaDB database (see test/support/database.ts), so files run in parallel.
  maxWorkers: 2,
};

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: "node",
  roots: ["<rootDir>/test"],
  testMatch: ["**/*.test.ts"],
  transform: { "^.+\\.ts$": ["ts-jest", { tsconfig: "tsconfig.jest.json" }] },
  setupFiles: ["<rootDir>/test/support/setup-env.ts"],
  // The safety net for servers the tests start (test/support/processes.ts): whatever a test left
  // running is killed by its recorded pid when the run ends, or when the next run starts.
  globalSetup: "<rootDir>/test/support/global-setup.ts",
  globalTeardown: "<rootDir>/test/support/global-teardown.ts",
  testTimeout: 30000,
  // Each test file gets its own MariaDB database (see test/support/database.ts), so files run in parallel.
  maxWorkers: 2,
};

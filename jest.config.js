/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: "node",
  roots: ["<rootDir>/test"],
  testMatch: ["**/*.test.ts"],
  transform: { "^.+\\.ts$": ["ts-jest", { tsconfig: "tsconfig.jest.json" }] },
  setupFiles: ["<rootDir>/test/support/setup-env.ts"],
  testTimeout: 30000,
  // Each test file gets its own MariaDB database (see test/support/database.ts), so files run in parallel.
  maxWorkers: 2,
};

// `npm run test:docs`: the examples of README.md and docs/*.md, run as written against a demo
// server (test/docs/, docs/testing.md "Examples that run").
const base = require("./jest.config");

/** @type {import('jest').Config} */
module.exports = { ...base, roots: ["<rootDir>/test/docs"], testPathIgnorePatterns: ["/node_modules/"] };

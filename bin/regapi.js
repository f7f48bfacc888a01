#!/usr/bin/env node
// The `regapi` CLI (`npx regapi …`; node_modules/.bin/regapi links here, see link-cli.js). It runs
// the compiled TypeScript of dist/: compiled by `npm install` (prepare), and again here first, as
// `npm start` does, when a source is newer than the build.
const { join } = require("node:path");
const { buildIfStale } = require("./build-if-stale");

const status = buildIfStale(join(__dirname, ".."));
if (status !== 0) process.exit(status);
require("../dist/src/cli/main.js");

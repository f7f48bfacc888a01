#!/usr/bin/env node
// `npm install` runs this (prepare): it links node_modules/.bin/regapi to bin/regapi.js, so that
// `npx regapi …` in a clone finds the CLI there and runs it at once. package.json declares no
// "bin" on purpose: for a package's own bin, npx first installs the package into its cache, which
// reads the whole dependency tree and runs prepare (a full compile) before the command starts.
const { chmodSync, mkdirSync, readlinkSync, symlinkSync, unlinkSync } = require("node:fs");
const { join } = require("node:path");

const binDir = join(__dirname, "../node_modules/.bin");
const link = join(binDir, "regapi");
const target = "../../bin/regapi.js";

mkdirSync(binDir, { recursive: true });
let current = null;
try {
  current = readlinkSync(link);
} catch {
  // Not there yet.
}
if (current !== target) {
  if (current !== null) unlinkSync(link);
  symlinkSync(target, link);
}
chmodSync(join(__dirname, "regapi.js"), 0o755);

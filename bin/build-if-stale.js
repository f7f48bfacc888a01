#!/usr/bin/env node
// `npm start` runs this first: it compiles only when a source is newer than the compiled entry
// point (or there is none), so a start after `npm run build` costs no compilation.
// `--check` prints "fresh" or "stale" and builds nothing. bin/regapi.js does the same before
// every CLI command, and the test run reuses a fresh dist/ instead of compiling again
// (test/support/service-build.ts).
const { spawnSync } = require("node:child_process");
const { readdirSync, statSync } = require("node:fs");
const { join } = require("node:path");

const SOURCES = ["src", "bench", "ormconfig.ts", "tsconfig.json", "tsconfig.build.json", "package.json"];

function newestMtime(path) {
  let stat;
  try {
    stat = statSync(path);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path).reduce((newest, name) => Math.max(newest, newestMtime(join(path, name))), stat.mtimeMs);
}

/** True when `root`/dist/src/main.js is missing or older than a source. */
function isStale(root) {
  let built;
  try {
    built = statSync(join(root, "dist/src/main.js")).mtimeMs;
  } catch {
    return true;
  }
  return SOURCES.some((source) => newestMtime(join(root, source)) > built);
}

/** Compiles `root` (as `npm run build`) when it is stale; returns tsc's exit code, 0 when fresh. */
function buildIfStale(root) {
  if (!isStale(root)) return 0;
  process.stderr.write("regapi: sources changed since the last build; compiling (npm run build)\n");
  const tsc = spawnSync(process.execPath, [require.resolve("typescript/bin/tsc"), "-p", "tsconfig.build.json"], {
    cwd: root,
    stdio: "inherit",
  });
  return tsc.status ?? 1;
}

module.exports = { isStale, buildIfStale };

if (require.main === module) {
  const root = process.env.REGAPI_BUILD_ROOT || join(__dirname, "..");
  if (process.argv.includes("--check")) process.stdout.write(isStale(root) ? "stale\n" : "fresh\n");
  else process.exitCode = buildIfStale(root);
}

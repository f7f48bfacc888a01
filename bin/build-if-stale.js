#!/usr/bin/env node
// `npm start` runs this first: it compiles only when a source is newer than the compiled entry
// point (or there is none), so a start after `npm run build` costs no compilation.
// `--check` prints "fresh" or "stale" and builds nothing.
const { spawnSync } = require("node:child_process");
const { readdirSync, statSync } = require("node:fs");
const { join } = require("node:path");

const root = process.env.REGAPI_BUILD_ROOT || join(__dirname, "..");
const SOURCES = ["src", "bench", "ormconfig.ts", "tsconfig.json", "tsconfig.build.json", "package.json"];
const ENTRY = join(root, "dist/src/main.js");

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

function isStale() {
  let built;
  try {
    built = statSync(ENTRY).mtimeMs;
  } catch {
    return true;
  }
  return SOURCES.some((source) => newestMtime(join(root, source)) > built);
}

const stale = isStale();
if (process.argv.includes("--check")) {
  process.stdout.write(stale ? "stale\n" : "fresh\n");
} else if (stale) {
  process.stderr.write("regapi: sources changed since the last build; compiling (npm run build)\n");
  const tsc = spawnSync(process.execPath, [require.resolve("typescript/bin/tsc"), "-p", "tsconfig.build.json"], {
    cwd: root,
    stdio: "inherit",
  });
  process.exit(tsc.status ?? 1);
}

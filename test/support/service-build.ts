import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";

// The service as `npm run build` compiles it, once per jest run: test/support/global-setup.ts
// prepares it before the first test starts (when a selected test file calls builtService()), so
// no test or hook compiles on its own clock, and every file that starts the real process (the
// service, `regapi worker`, the CLI) starts the same build. It lives inside node_modules/.cache so
// that it resolves packages from the project's node_modules and finds the repository's public/,
// and never races a developer's dist/.

const ROOT = join(__dirname, "../..");
const BUILDS = join(ROOT, "node_modules/.cache/regapi-test-builds");

export interface ServiceBuild {
  /** The compiled service entry point (`node <mainJs>` is what `npm start` runs). */
  mainJs: string;
  /** The compiled CLI entry point (`node <cliJs> <command>` is `regapi <command>`). */
  cliJs: string;
}

const folderOf = (run: string) => join(BUILDS, run);

function layout(folder: string): ServiceBuild {
  return { mainJs: join(folder, "src/main.js"), cliJs: join(folder, "src/cli/main.js") };
}

/** The build of this jest run. */
export function builtService(): ServiceBuild {
  const run = process.env.REGAPI_TEST_RUN;
  const build = run ? layout(folderOf(run)) : undefined;
  if (!build || !existsSync(build.mainJs)) {
    throw new Error(
      "no service build for this run: the jest global setup (test/support/global-setup.ts) builds it " +
        "when a selected test file calls builtService() itself; run the file through jest",
    );
  }
  return build;
}

/**
 * Prepares the run's build: a copy of dist/ when it is up to date with the sources (what
 * `npm install` and `npm start` leave), else a compilation of its own. Returns how long it took
 * and which way it went.
 */
export function prepareBuild(run: string): { copied: boolean; ms: number } {
  const started = Date.now();
  const folder = folderOf(run);
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(BUILDS, { recursive: true });
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { isStale } = require("../../bin/build-if-stale.js") as { isStale(root: string): boolean };
  if (!isStale(ROOT)) {
    cpSync(join(ROOT, "dist"), folder, { recursive: true });
    return { copied: true, ms: Date.now() - started };
  }
  const tsc = spawnSync(
    process.execPath,
    [require.resolve("typescript/bin/tsc"), "-p", "tsconfig.build.json", "--outDir", folder],
    { cwd: ROOT, encoding: "utf8" },
  );
  if (tsc.status !== 0) {
    rmSync(folder, { recursive: true, force: true });
    throw new Error(`the service does not compile (tsc exit ${tsc.status}):\n${tsc.stdout}${tsc.stderr}`);
  }
  return { copied: false, ms: Date.now() - started };
}

/** Removes the build of `run`, and those of runs whose jest process is gone. */
export function removeBuilds(run: string, isAlive: (pid: number) => boolean): void {
  let names: string[];
  try {
    names = readdirSync(BUILDS);
  } catch {
    return;
  }
  for (const name of names)
    if (name === run || !isAlive(Number(name))) rmSync(join(BUILDS, name), { recursive: true, force: true });
}

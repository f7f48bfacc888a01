import { existsSync, readFileSync, rmSync } from "node:fs";
import { isAlive, killRecordedProcesses, removeEmptyRegistry } from "./processes";
import { removeRunFolders } from "./run-folder";
import { removeBuilds } from "./service-build";

/**
 * The last safety net: every server a test of this run started and did not stop (a failed
 * afterAll, a force-exited worker) is killed by its recorded pid; then the run's temporary folder
 * and its build are removed.
 */
export default function globalTeardown(): void {
  const run = process.env.REGAPI_TEST_RUN ?? String(process.pid);
  const leftovers = killRecordedProcesses(run);
  if (leftovers.length > 0)
    process.stderr.write(`killed servers the tests left running:\n  ${leftovers.join("\n  ")}\n`);
  removeEmptyRegistry();
  reportOpenHandles();
  removeRunFolders(run, isAlive);
  removeBuilds(run, isAlive);
}

/** Names the files that left something open (handle-audit-environment.js), once, at the end. */
function reportOpenHandles(): void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the environment is plain JS, for jest to load
  const { recordFile } = require("./handle-audit-environment.js") as { recordFile(): string };
  const file = recordFile();
  if (!existsSync(file)) return;
  const lines = readFileSync(file, "utf8").trim().split("\n");
  rmSync(file);
  process.stderr.write(
    `test files that left resources open (they keep a jest worker from exiting):\n  ${lines.join("\n  ")}\n`,
  );
}

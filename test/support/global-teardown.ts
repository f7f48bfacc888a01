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
  removeRunFolders(run, isAlive);
  removeBuilds(run, isAlive);
}

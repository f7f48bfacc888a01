import { isAlive, killRecordedProcesses } from "./processes";
import { openRunFolder, removeRunFolders } from "./run-folder";
import { prepareBuild, removeBuilds } from "./service-build";

/**
 * Names this jest run for the process safety net (test/support/processes.ts), kills what an
 * interrupted earlier run left behind (servers whose jest process is gone) and removes its
 * folders, gives the run a temporary folder of its own (run-folder.ts), and builds the service
 * once for the files that start it (service-build.ts).
 */
export default function globalSetup(): void {
  const run = String(process.pid);
  process.env.REGAPI_TEST_RUN = run;
  const leftovers = killRecordedProcesses(run);
  if (leftovers.length > 0)
    process.stderr.write(`killed servers left by an earlier test run:\n  ${leftovers.join("\n  ")}\n`);
  removeRunFolders(run, isAlive);
  removeBuilds(run, isAlive);
  openRunFolder(run);
  // Set by test/support/test-sequencer.js from the selected files; unknown (another sequencer) means build.
  if (process.env.REGAPI_TESTS_NEED_BUILD !== "0") {
    const { copied, ms } = prepareBuild(run);
    if (!copied)
      process.stderr.write(
        `compiled the service for this run in ${(ms / 1000).toFixed(1)} s (dist/ is older than src/)\n`,
      );
  }
}

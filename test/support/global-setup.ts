import { killRecordedProcesses } from "./processes";

/**
 * Names this jest run for the process safety net (test/support/processes.ts), and kills what an
 * interrupted earlier run left behind (servers whose jest process is gone).
 */
export default function globalSetup(): void {
  process.env.REGAPI_TEST_RUN = String(process.pid);
  const leftovers = killRecordedProcesses(process.env.REGAPI_TEST_RUN);
  if (leftovers.length > 0)
    process.stderr.write(`killed servers left by an earlier test run:\n  ${leftovers.join("\n  ")}\n`);
}

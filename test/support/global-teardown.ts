import { killRecordedProcesses } from "./processes";

/**
 * The last safety net: every server a test of this run started and did not stop (a failed
 * afterAll, a force-exited worker) is killed by its recorded pid.
 */
export default function globalTeardown(): void {
  const leftovers = killRecordedProcesses(process.env.REGAPI_TEST_RUN ?? String(process.pid));
  if (leftovers.length > 0)
    process.stderr.write(`killed servers the tests left running:\n  ${leftovers.join("\n  ")}\n`);
}

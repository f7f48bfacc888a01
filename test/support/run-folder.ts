import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

// Every temporary file of a jest run goes into one folder of its own: the global setup points
// TMPDIR there (so os.tmpdir() in every worker, and in every server a test starts, answers it),
// and the global teardown removes it, so a run leaves nothing in the machine's temporary folder
// whatever a test forgot. What must outlive a run or be seen by other runs (the machine lock, the
// process registry) uses machineTmp().

/** The machine's temporary folder, as it was before the run pointed TMPDIR at its own. */
export function machineTmp(): string {
  return process.env.REGAPI_MACHINE_TMP ?? tmpdir();
}

const PREFIX = "regapi-run-";

/** Creates the run's folder and makes it the temporary folder of this process and its children. */
export function openRunFolder(run: string): string {
  process.env.REGAPI_MACHINE_TMP = machineTmp();
  const folder = join(machineTmp(), `${PREFIX}${run}`);
  mkdirSync(folder, { recursive: true });
  process.env.TMPDIR = folder;
  return folder;
}

/** Removes the folder of `run`, and those of runs whose jest process is gone. */
export function removeRunFolders(run: string, isAlive: (pid: number) => boolean): void {
  for (const name of readdirSync(machineTmp())) {
    if (!name.startsWith(PREFIX)) continue;
    const owner = name.slice(PREFIX.length);
    if (owner === run || !isAlive(Number(owner))) rmSync(join(machineTmp(), name), { recursive: true, force: true });
  }
}

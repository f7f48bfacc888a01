import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { testDatabase } from "./database";

// Figures a test measures on the way (times, counts of answers, peak memory) go to a file, one
// per test file and database, never into the test output: test-results/figures/<name>.<db>.json
// (git-ignored). docs/resilience.md and docs/scale-out.md say what they hold.

const FOLDER = join(__dirname, "../../test-results/figures");

/** Writes `figures` as test-results/figures/<name>.<sqlite|mysql|mariadb>.json; returns the path. */
export function writeFigures(name: string, figures: unknown): string {
  mkdirSync(FOLDER, { recursive: true });
  const file = join(FOLDER, `${name}.${testDatabase.kind}.json`);
  writeFileSync(file, `${JSON.stringify({ writtenAt: new Date().toISOString(), figures }, null, 2)}\n`);
  return file;
}

// @ts-check
const { appendFileSync, mkdirSync } = require("node:fs");
const { join, relative } = require("node:path");
const { TestEnvironment } = require("jest-environment-node");

// The test environment of every file: Node's, plus an audit of what the file left open. A socket,
// server or ref'd timer that outlives its file keeps the jest worker alive at the end of the run,
// and jest then kills it with "A worker process has failed to exit gracefully", without saying which
// file is to blame. Here each file's teardown compares the resources keeping the process alive
// (process.getActiveResourcesInfo) with those at its start, gives closes in flight 400 ms (jest
// kills a worker 500 ms after asking it to exit), and appends what is still new to the run's
// record; the global teardown names those files.

const ROOT = join(__dirname, "../..");
const GRACE_MS = 400;

/** @param {string[]} resources */
function countByKind(resources) {
  /** @type {Map<string, number>} */
  const counts = new Map();
  for (const kind of resources) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  return counts;
}

/** What is open now beyond `before`, by kind. @param {Map<string, number>} before */
function openedSince(before) {
  /** @type {Record<string, number>} */
  const added = {};
  for (const [kind, count] of countByKind(process.getActiveResourcesInfo())) {
    const more = count - (before.get(kind) ?? 0);
    if (more > 0) added[kind] = more;
  }
  return added;
}

/** The record of this run (test/support/global-teardown.ts reads it). */
function recordFile() {
  return join(ROOT, "test-results", `open-handles.${process.env.REGAPI_TEST_RUN ?? "run"}.jsonl`);
}

class HandleAuditEnvironment extends TestEnvironment {
  /** @param {import("@jest/environment").JestEnvironmentConfig} config @param {import("@jest/environment").EnvironmentContext} context */
  constructor(config, context) {
    super(config, context);
    this.testPath = context.testPath;
    /** @type {Map<string, number>} */
    this.openAtStart = new Map();
  }

  async setup() {
    await super.setup();
    this.openAtStart = countByKind(process.getActiveResourcesInfo());
  }

  async teardown() {
    await super.teardown();
    let left = openedSince(this.openAtStart);
    for (let waited = 0; Object.keys(left).length > 0 && waited < GRACE_MS; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      left = openedSince(this.openAtStart);
    }
    if (Object.keys(left).length === 0) return;
    mkdirSync(join(ROOT, "test-results"), { recursive: true });
    appendFileSync(recordFile(), `${JSON.stringify({ file: relative(ROOT, this.testPath), left })}\n`);
  }
}

module.exports = HandleAuditEnvironment;
module.exports.recordFile = recordFile;

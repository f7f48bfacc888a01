import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";

// The committed client code must be what graphql-codegen makes now from schema.graphql and the
// operations: a schema change that breaks an operation, or a forgotten `npm run client:codegen`,
// fails here instead of leaving the smoke test on stale types. The generator runs in a child
// process: its CLI package loads ES modules that Jest's CommonJS runtime cannot require.

const ROOT = join(__dirname, "..", "..");
const GENERATED_DIR = "test/client/gql";

const GENERATE_IN_MEMORY = `
  const { generate } = require("@graphql-codegen/cli");
  const config = require("./test/client/codegen.config.cjs");
  generate({ ...config, silent: true }, false).then((outputs) => {
    process.stdout.write(JSON.stringify(outputs.map(({ filename, content }) => ({ filename, content }))));
  }, (error) => { console.error(error); process.exit(1); });
`;

// The generator needs seconds of CPU; on a heavily loaded machine that became over a minute of
// wall time, so the child gets minutes, and the worker's event loop is not blocked meanwhile.
const GENERATE_TIMEOUT_MS = 240_000;

it(
  "test/client/gql is up to date with schema.graphql and test/client/operations.ts",
  async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ["-e", GENERATE_IN_MEMORY], {
      cwd: ROOT,
      encoding: "utf8",
      timeout: GENERATE_TIMEOUT_MS,
      maxBuffer: 64 * 1024 * 1024,
    });
    const outputs = JSON.parse(stdout) as { filename: string; content: string }[];
    const fresh = new Map(outputs.map((output) => [output.filename.replace(/^\.\//, ""), output.content]));
    const committed = new Map(
      readdirSync(join(ROOT, GENERATED_DIR)).map((name) => [
        `${GENERATED_DIR}/${name}`,
        readFileSync(join(ROOT, GENERATED_DIR, name), "utf8"),
      ]),
    );
    expect([...committed.keys()].sort()).toEqual([...fresh.keys()].sort());
    for (const [file, content] of fresh) {
      // File by file, so a failure names the stale file; `npm run client:codegen` fixes it.
      expect({ file, content: committed.get(file) }).toEqual({ file, content });
    }
  },
  GENERATE_TIMEOUT_MS + 30_000,
);

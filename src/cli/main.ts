import "reflect-metadata";
import { processIo } from "./cli-io";
import { runCli } from "./run-cli";

// The `regapi` executable (bin/regapi.js): one command line, then the exit code.
runCli(process.argv.slice(2), processIo()).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`regapi: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exitCode = 1;
  },
);

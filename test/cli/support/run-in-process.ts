import { DataSource } from "typeorm";
import type { ProcessState } from "../../../src/domain/process-state";
import { runCli } from "../../../src/cli/run-cli";

/** A stream that keeps what is written; `isTTY` makes it look like a terminal. */
export class MemoryStream {
  text = "";
  constructor(readonly isTTY = false) {}
  write(chunk: string): boolean {
    this.text += chunk;
    return true;
  }
}

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `regapi <argv>` in this process against `target`: a DataSource, or an app's process state
 * (then key changes reach that app's account cache at once, as in the process that made them).
 */
export async function regapi(
  argv: string[],
  target: DataSource | ProcessState,
  options: { env?: NodeJS.ProcessEnv; stderr?: MemoryStream } = {},
): Promise<CliRun> {
  const stdout = new MemoryStream();
  const stderr = options.stderr ?? new MemoryStream();
  const cli = target instanceof DataSource ? { dataSource: target } : { dataSource: target.dataSource, state: target };
  const code = await runCli(argv, { stdout, stderr, env: options.env ?? {} }, cli);
  return { code, stdout: stdout.text, stderr: stderr.text };
}

/** `Name: value` lines of a command's output. */
export function outputFields(text: string): Record<string, string> {
  return Object.fromEntries(
    text
      .split("\n")
      .map((line) => /^([A-Za-z-]+): (.*)$/.exec(line))
      .filter((match): match is RegExpExecArray => match !== null)
      .map((match) => [match[1], match[2]]),
  );
}

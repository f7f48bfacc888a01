/** Where a CLI run writes and what it reads; tests pass in-memory streams, the process its own. */
export interface CliStream {
  write(chunk: string): unknown;
  /** True on a terminal: `seed` then draws a progress bar instead of a summary line only. */
  isTTY?: boolean;
}

export interface CliIo {
  stdout: CliStream;
  stderr: CliStream;
  env: NodeJS.ProcessEnv;
}

export const processIo = (): CliIo => ({ stdout: process.stdout, stderr: process.stderr, env: process.env });

/** Writes one line (a trailing newline is added). */
export const writeLine = (stream: CliStream, line: string) => stream.write(`${line}\n`);

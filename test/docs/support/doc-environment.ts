import { execFile } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startReceiver } from "../../events/support/receiver";
import { startService, stopService, type ServiceProcess } from "../../foundation/support/service-process";
import { builtService } from "../../support/service-build";

// Where a page's examples run, as a user runs them in a clone: a folder of its own (the user's
// working folder, where `npx regapi` finds the CLI and the default SQLite file data/regapi.sqlite
// lives), the demo server started there as `npm start` starts it, one bash whose variables carry
// from block to block, and a webhook receiver on loopback for the pages' outside hosts.
//
// The pages say port 3000 and https://hooks.example.com; commands are run with the server's and
// the receiver's real addresses instead, and what they print is read back with the pages' ones.

const ROOT = join(__dirname, "../../..");
/** What a page's folder has of its own: its database and build, and the CLI link. */
const NOT_LINKED = new Set([".git", "node_modules", "data", "dist", "test-results"]);

export const DOC_PORT = 3000;
export const DOC_HOOKS = "https://hooks.example.com";

/** What every command of a page and the server see besides PATH and HOME. */
const PAGE_ENV = {
  // Examples register webhooks at the local receiver (loopback).
  WEBHOOK_ALLOW_PRIVATE: "true",
  DELIVERY_POLL_MS: "100",
  NO_COLOR: "1",
};

/** The PATH of a user's shell: npm's own node_modules/.bin folders (npx, npm test add them) left out. */
const USER_PATH = (process.env.PATH ?? "")
  .split(":")
  .filter((dir) => !dir.includes("node_modules/.bin"))
  .join(":");

export interface CommandRun {
  code: number;
  stdout: string;
  stderr: string;
}

export class DocEnvironment {
  private constructor(
    private readonly root: string,
    readonly folder: string,
    private readonly server: ServiceProcess & { port: number },
    private readonly receiver: Awaited<ReturnType<typeof startReceiver>>,
  ) {}

  static async start(): Promise<DocEnvironment> {
    const root = mkdtempSync(join(tmpdir(), "regapi-doc-"));
    const folder = join(root, "clone");
    // `npx regapi` in this folder runs the run's build of the CLI, as node_modules/.bin/regapi does in a clone.
    mkdirSync(join(folder, "node_modules/.bin"), { recursive: true });
    const shim = join(folder, "node_modules/.bin/regapi");
    writeFileSync(shim, `#!/usr/bin/env node\nrequire(${JSON.stringify(builtService().cliJs)});\n`);
    chmodSync(shim, 0o755);
    // The rest of the clone: the repository's files, so that examples may name them (a fixture, schema.graphql).
    for (const name of readdirSync(ROOT)) if (!NOT_LINKED.has(name)) symlinkSync(join(ROOT, name), join(folder, name));
    const receiver = await startReceiver();
    const server = await startService(builtService().mainJs, { ...PAGE_ENV, LOG_LEVEL: "info" }, folder);
    return new DocEnvironment(root, folder, server, receiver);
  }

  get port(): number {
    return this.server.port;
  }

  /** The page's text with the real addresses. */
  toReal(text: string): string {
    return text
      .replace(new RegExp(`\\b(localhost|127\\.0\\.0\\.1):${DOC_PORT}\\b`, "g"), `$1:${this.port}`)
      .split(DOC_HOOKS)
      .join(this.receiver.url("").replace(/\/$/, ""));
  }

  /** Output read back with the page's addresses. */
  toPage(text: string): string {
    return text
      .replace(new RegExp(`\\b(localhost|127\\.0\\.0\\.1):${this.port}\\b`, "g"), `$1:${DOC_PORT}`)
      .split(this.receiver.url("").replace(/\/$/, ""))
      .join(DOC_HOOKS);
  }

  /** Runs a script in the page's bash (`set -eo pipefail`), with the variables and folder earlier blocks left. */
  shell(script: string, timeoutMs = 60_000): Promise<CommandRun> {
    const state = join(this.root, "shell-state");
    const wrapped = [
      "set -eo pipefail",
      `cd ${JSON.stringify(this.folder)}`,
      `__doc_known=" $(compgen -v | tr '\\n' ' ') "`,
      `[ -f ${JSON.stringify(state)} ] && source ${JSON.stringify(state)}`,
      "__doc_save() {",
      "  local code=$?",
      "  { for __doc_name in $(compgen -v); do",
      '      case "$__doc_known" in *" $__doc_name "*) ;; *) [[ $__doc_name == __doc* ]] || declare -p "$__doc_name" 2>/dev/null ;; esac',
      `    done; printf 'cd %q\\n' "$PWD"; } > ${JSON.stringify(state)}`,
      "  return $code",
      "}",
      "trap __doc_save EXIT",
      this.toReal(script),
    ].join("\n");
    return this.run("bash", ["-c", wrapped], timeoutMs);
  }

  python(script: string, timeoutMs = 60_000): Promise<CommandRun> {
    return this.run("python3", ["-c", this.toReal(script)], timeoutMs);
  }

  /** A variable the page's bash has set, or undefined. */
  async variable(name: string): Promise<string | undefined> {
    const run = await this.shell(`if [ -n "\${${name}+set}" ]; then printf %s "$${name}"; else exit 3; fi`);
    return run.code === 0 ? run.stdout : undefined;
  }

  private run(command: string, args: string[], timeoutMs: number): Promise<CommandRun> {
    return new Promise((resolve) => {
      execFile(
        command,
        args,
        {
          cwd: this.folder,
          encoding: "utf8",
          timeout: timeoutMs,
          maxBuffer: 16 * 1024 * 1024,
          env: { PATH: USER_PATH, HOME: process.env.HOME ?? "", LANG: "C.UTF-8", ...PAGE_ENV },
        },
        (error, stdout, stderr) => {
          const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
          resolve({ code, stdout: this.toPage(stdout), stderr: this.toPage(stderr) });
        },
      );
    });
  }

  /** A GraphQL request to the page's server. */
  async graphql(
    query: string,
    variables: Record<string, unknown> | undefined,
    headers: Record<string, string>,
  ): Promise<{ status: number; body: unknown }> {
    const response = await fetch(`http://127.0.0.1:${this.port}/graphql`, {
      method: "POST",
      headers: { "Content-Type": "application/json", ...headers },
      body: this.toReal(JSON.stringify({ query, variables })),
    });
    return { status: response.status, body: JSON.parse(this.toPage(await response.text())) };
  }

  async stop(): Promise<void> {
    if (this.server.child.exitCode === null) await stopService(this.server);
    await this.receiver.close();
    rmSync(this.root, { recursive: true, force: true });
  }
}

import { readFileSync } from "node:fs";
import http from "node:http";
import { MAPLE, mapleHeaders } from "../../fixtures/test-fixture";

export interface Answer {
  status: number;
  ms: number;
  startedAt: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** Set when no HTTP answer came (ECONNRESET, ECONNREFUSED, timeout). */
  error?: string;
}

const LIST_PROJECTS = JSON.stringify({ action: "get_project_list", group_id: MAPLE.groupId, doc: {} });
const GRAPHQL_PROJECTS = JSON.stringify({ query: "{ projects { groupId name } }" });

/** One read through REST or GraphQL (alternating by `i`), on a fresh connection unless an agent is given. */
export function hit(
  port: number,
  i: number,
  options: { agent?: http.Agent; timeoutMs?: number; onSocket?: () => void } = {},
): Promise<Answer> {
  const graphql = i % 2 === 1;
  return post(port, graphql ? "/graphql" : "/reg/api2/projects/", graphql ? GRAPHQL_PROJECTS : LIST_PROJECTS, options);
}

/**
 * One POST as the demo's API account, timed; never rejects: a connection that gets no HTTP answer
 * (reset, refused, timed out) resolves with status 0 and the error, which is what a fault test counts.
 */
export function post(
  port: number,
  path: string,
  body: string,
  options: { agent?: http.Agent | false; timeoutMs?: number; onSocket?: () => void; onSent?: () => void } = {},
): Promise<Answer> {
  const startedAt = Date.now();
  return new Promise((resolve) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        method: "POST",
        path,
        agent: options.agent ?? false,
        headers: { ...mapleHeaders, "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) },
        timeout: options.timeoutMs ?? 30_000,
      },
      (res) => {
        let text = "";
        res.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            ms: Date.now() - startedAt,
            startedAt,
            headers: res.headers,
            body: text,
          }),
        );
      },
    );
    req.on("socket", (socket) => {
      if (options.onSocket) {
        if (socket.connecting) socket.once("connect", options.onSocket);
        else options.onSocket();
      }
    });
    // The whole request handed to the kernel on a connected socket: its bytes are on their way.
    if (options.onSent) req.once("finish", options.onSent);
    req.on("timeout", () => req.destroy(new Error("client timeout")));
    req.on("error", (error) =>
      resolve({ status: 0, ms: Date.now() - startedAt, startedAt, headers: {}, body: "", error: error.message }),
    );
    req.end(body);
  });
}

export function getStatus(port: number, path: string, timeoutMs = 10_000): Promise<Answer> {
  const startedAt = Date.now();
  return new Promise((resolve) => {
    const req = http.get({ host: "127.0.0.1", port, path, agent: false, timeout: timeoutMs }, (res) => {
      res.resume();
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, ms: Date.now() - startedAt, startedAt, headers: res.headers, body: "" }),
      );
    });
    req.on("timeout", () => req.destroy(new Error("client timeout")));
    req.on("error", (error) =>
      resolve({ status: 0, ms: Date.now() - startedAt, startedAt, headers: {}, body: "", error: error.message }),
    );
  });
}

/** Runs `workers` loops of requests until `stop()` is called; returns every answer. */
export function sustainedLoad(port: number, workers: number) {
  const answers: Answer[] = [];
  let running = true;
  let n = 0;
  const loops = Array.from({ length: workers }, async () => {
    while (running) answers.push(await hit(port, n++, { timeoutMs: 30_000 }));
  });
  return {
    answers,
    async stop() {
      running = false;
      await Promise.all(loops);
      return answers;
    },
  };
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** Peak and current resident set size of a process, in MiB (Linux /proc). */
export function rssOf(pid: number): { peakMiB: number; nowMiB: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0);
  return { peakMiB: Math.round(kib("VmHWM") / 1024), nowMiB: Math.round(kib("VmRSS") / 1024) };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

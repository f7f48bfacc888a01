import { mkdtempSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startService, stopService, type ServiceProcess } from "../foundation/support/service-process";
import { builtService } from "../support/service-build";

// Issue 13: slow clients must not hold connections for minutes. The real process (`node main.js`)
// with short limits: a client that trickles its headers, or sends headers and then only part of
// its body, is answered 408 and disconnected once HTTP_HEADERS_TIMEOUT_MS / HTTP_REQUEST_TIMEOUT_MS
// have passed (Node checks them every second here).
jest.setTimeout(60_000);

const HEADERS_TIMEOUT_MS = 1000;
const REQUEST_TIMEOUT_MS = 2000;
// Node checks every second, so a connection may outlive its limit by a second or so (more on a busy machine).
const GRACE_MS = 5000;

let service: ServiceProcess & { port: number };

beforeAll(async () => {
  service = await startService(builtService().mainJs, {
    DATABASE_URL: `sqlite:${join(mkdtempSync(join(tmpdir(), "regapi-slow-")), "slow.sqlite")}`,
    DEMO: "false",
    HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
    HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
  });
});

afterAll(async () => {
  if (service && service.child.exitCode === null) await stopService(service);
});

interface SlowClientOutcome {
  /** Milliseconds from the first byte sent until the server closed the connection, or null if it never did. */
  closedAfterMs: number | null;
  answer: string;
}

/** Opens a connection, writes `sent` and nothing more, and reports when (if) the server hangs up. */
function slowClient(port: number, sent: string, giveUpMs: number): Promise<SlowClientOutcome> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: "127.0.0.1", port });
    let answer = "";
    let started = 0;
    const giveUp = setTimeout(() => {
      socket.destroy();
      resolve({ closedAfterMs: null, answer });
    }, giveUpMs);
    socket.on("connect", () => {
      started = Date.now();
      socket.write(sent);
    });
    socket.on("data", (chunk: Buffer) => (answer += chunk.toString("latin1")));
    socket.on("close", () => {
      clearTimeout(giveUp);
      resolve({ closedAfterMs: Date.now() - started, answer });
    });
    socket.on("error", (error: NodeJS.ErrnoException) => {
      // A reset after the answer is still the server hanging up.
      if (error.code !== "ECONNRESET") {
        clearTimeout(giveUp);
        reject(error);
      }
    });
  });
}

describe("slow clients are cut off", () => {
  it("20 clients that never finish their headers are answered 408 and closed after the headers timeout", async () => {
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, () =>
        slowClient(service.port, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ", 10_000),
      ),
    );
    for (const outcome of outcomes) {
      expect(outcome.closedAfterMs).not.toBeNull();
      expect(outcome.closedAfterMs!).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 100);
      expect(outcome.closedAfterMs!).toBeLessThan(HEADERS_TIMEOUT_MS + GRACE_MS);
      expect(outcome.answer).toMatch(/^HTTP\/1\.1 408 /);
    }
  });

  it("a client that sends its headers but only part of its body is closed after the request timeout", async () => {
    const head =
      "POST /reg/api2/projects/ HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" +
      "Content-Length: 100\r\n\r\n";
    const outcome = await slowClient(service.port, `${head}{"action":`, 12_000);
    expect(outcome.closedAfterMs).not.toBeNull();
    expect(outcome.closedAfterMs!).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 100);
    expect(outcome.closedAfterMs!).toBeLessThan(REQUEST_TIMEOUT_MS + GRACE_MS);
  });

  it("the service still answers others meanwhile", async () => {
    const trickling = slowClient(service.port, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n", 10_000);
    const res = await fetch(`http://127.0.0.1:${service.port}/healthz`);
    expect(res.status).toBe(200);
    expect((await trickling).closedAfterMs).not.toBeNull();
  });
});

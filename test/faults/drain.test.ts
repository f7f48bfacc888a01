import http from "node:http";
import net from "node:net";
import { acceptQueueLength, trackConnections } from "../../src/http/drain";

// The drain's own pieces, in process: the kernel's accept queue as the drain reads it, and a
// listener that closes only once what waited in that queue while the process was busy is taken.

/** Blocks this process's event loop, as a burst of heavy requests does. */
function busy(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until);
}

const listening = (server: net.Server) =>
  new Promise<number>((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve((server.address() as net.AddressInfo).port)),
  );

describe("acceptQueueLength", () => {
  it("counts connections the kernel has completed and the process has not taken yet, then none", async () => {
    const server = net.createServer((socket) => socket.destroy());
    const port = await listening(server);
    expect(acceptQueueLength(port)).toBe(0);
    const clients = Array.from({ length: 3 }, () => net.connect(port, "127.0.0.1").on("error", () => undefined));
    // The connect() calls are issued on the next tick; the kernel completes them without us.
    await new Promise((resolve) => process.nextTick(resolve));
    busy(200);
    expect(acceptQueueLength(port)).toBe(3);
    for (let i = 0; i < 100 && acceptQueueLength(port) !== 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(acceptQueueLength(port)).toBe(0);
    for (const client of clients) client.destroy();
    await new Promise((resolve) => server.close(resolve));
  });

  it("is null for a port nothing listens on", () => {
    expect(acceptQueueLength(1)).toBeNull();
  });
});

describe("trackConnections().drain", () => {
  it("answers requests that waited in the accept queue past the accept window while the process was busy", async () => {
    const server = http.createServer((_req, res) => res.end("answered"));
    const connections = trackConnections(server);
    const port = await listening(server);
    const answers: Promise<string>[] = [];
    for (let i = 0; i < 10; i++) {
      answers.push(
        new Promise((resolve) => {
          const req = http.request({ host: "127.0.0.1", port, method: "POST", agent: false }, (res) => {
            let body = "";
            res.on("data", (chunk: Buffer) => (body += chunk.toString()));
            res.on("end", () => resolve(body));
          });
          req.on("error", (error) => resolve(error.message));
          req.end("x");
        }),
      );
    }
    await new Promise((resolve) => process.nextTick(resolve));
    const drained = connections.drain({ acceptMs: 0, idleMs: 0, acceptAtMostMs: 5000 });
    // The accept window (0 ms here) runs out while every connection still waits in the kernel.
    busy(200);
    expect(await Promise.all(answers)).toEqual(Array.from({ length: 10 }, () => "answered"));
    await drained;
    expect(server.listening).toBe(false);
  });
});

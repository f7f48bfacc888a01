import type { Server } from "node:http";
import { readFileSync } from "node:fs";
import net, { type Socket } from "node:net";

interface ConnectionState {
  /** Requests read on this connection whose answer is not finished. */
  inProgress: number;
  /** bytesRead when the connection last became quiet (accepted, or its last answer finished). */
  bytesAtQuiet: number;
  quietSince: number;
}

/**
 * How often, after the accept window, the listener is looked at before it closes. A busy process
 * takes one waiting connection per turn of its event loop (libuv accepts one per poll), so what
 * waits in the kernel's accept queue can take seconds to be taken: the listener closes only once
 * that queue is empty and a turn that polled it took no new connection.
 */
const ACCEPT_CHECK_MS = 50;

const afterPollPhase = () => new Promise<void>((resolve) => setImmediate(resolve));
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Connections waiting in the kernel's accept queue of the listener on `port` (Linux: the
 * rx_queue of a LISTEN socket in /proc/net/tcp and tcp6), or null where that cannot be read.
 */
export function acceptQueueLength(port: number): number | null {
  const portHex = port.toString(16).toUpperCase().padStart(4, "0");
  let found: number | null = null;
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text: string;
    try {
      text = readFileSync(table, "latin1");
    } catch {
      continue;
    }
    for (const line of text.split("\n")) {
      // sl local_address rem_address st tx_queue:rx_queue …; LISTEN is state 0A.
      const [, local, , state, queues] = line.trim().split(/\s+/);
      if (state !== "0A" || !local?.endsWith(`:${portHex}`)) continue;
      found = (found ?? 0) + parseInt(queues.split(":")[1], 16);
    }
  }
  return found;
}

export interface DrainLimits {
  /** Keep accepting this long after the signal (a load balancer's last connections are served). */
  acceptMs: number;
  /** A connection with nothing in progress is closed once quiet this long. */
  idleMs: number;
  /** Stop accepting by then at the latest, even while connections keep arriving. */
  acceptAtMostMs: number;
}

/**
 * Graceful draining of an HTTP server without dropping requests. http.Server#close closes idle
 * connections at once, including ones accepted a moment ago whose request is still on the wire,
 * and closing the listener resets connections the kernel accepted but Node had not yet taken
 * (clients saw ECONNRESET). So, on `drain(limits)`:
 * 1. the listener keeps accepting for `acceptMs` (the app answers with `Connection: close`): a
 *    load balancer that has not yet seen /readyz turn 503 still sends here, and is served;
 * 2. then it keeps accepting until the kernel's accept queue is empty and a turn of the event loop
 *    that polled the listener took no new connection: what waited there while the process was
 *    busy is taken and answered, not reset (`acceptAtMostMs` bounds this against a client that
 *    keeps connecting);
 * 3. then it stops accepting; a connection is closed once nothing is in progress on it, no new
 *    byte has arrived since it became quiet, and it has been quiet for `idleMs`;
 * 4. it resolves when every connection has closed.
 * A connection whose request has arrived is answered, never reset.
 * Install before listening, so every connection is seen.
 */
export function trackConnections(server: Server): { drain(limits: DrainLimits): Promise<void> } {
  const connections = new Map<Socket, ConnectionState>();
  let accepted = 0;
  server.on("connection", (socket: Socket) => {
    accepted++;
    connections.set(socket, { inProgress: 0, bytesAtQuiet: 0, quietSince: Date.now() });
    socket.once("close", () => connections.delete(socket));
  });
  server.on("request", (req, res) => {
    const state = connections.get(req.socket);
    if (!state) return;
    state.inProgress++;
    res.once("close", () => {
      state.inProgress--;
      state.bytesAtQuiet = req.socket.bytesRead;
      state.quietSince = Date.now();
    });
  });

  /** Resolves, in the check phase right after a poll phase, once nothing waits to be accepted. */
  const acceptQueueDrained = async (deadline: number) => {
    const address = server.address();
    const port = typeof address === "object" && address ? address.port : null;
    for (;;) {
      const seen = accepted;
      await sleep(Math.max(0, Math.min(ACCEPT_CHECK_MS, deadline - Date.now())));
      await afterPollPhase();
      const waiting = port === null ? null : acceptQueueLength(port);
      if ((accepted === seen && (waiting ?? 0) === 0) || Date.now() >= deadline) return;
    }
  };

  return {
    async drain({ acceptMs, idleMs, acceptAtMostMs }) {
      const deadline = Date.now() + Math.max(acceptMs, acceptAtMostMs);
      await sleep(acceptMs);
      await acceptQueueDrained(deadline);
      // Synchronously after the check: nothing is accepted between it and the close.
      const closed = new Promise<void>((resolve) => net.Server.prototype.close.call(server, () => resolve()));
      const isQuiet = (socket: Socket, state: ConnectionState) =>
        state.inProgress === 0 && socket.bytesRead === state.bytesAtQuiet && Date.now() - state.quietSince >= idleMs;
      const sweep = setInterval(() => {
        const candidates = [...connections].filter(([socket, state]) => isQuiet(socket, state));
        // Timers run before the poll phase: bytes already waiting on a socket are read there, so
        // look again after it (setImmediate) before closing anything.
        setImmediate(() => {
          for (const [socket, state] of candidates) if (isQuiet(socket, state)) socket.destroy();
        });
      }, 50);
      try {
        await closed;
      } finally {
        clearInterval(sweep);
      }
    },
  };
}

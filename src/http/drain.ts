import type { Server } from "node:http";
import net, { type Socket } from "node:net";

interface ConnectionState {
  /** Requests read on this connection whose answer is not finished. */
  inProgress: number;
  /** bytesRead when the connection last became quiet (accepted, or its last answer finished). */
  bytesAtQuiet: number;
  quietSince: number;
}

/**
 * Graceful draining of an HTTP server without dropping requests. http.Server#close closes idle
 * connections at once, including ones accepted a moment ago whose request is still on the wire,
 * and closing the listener resets connections the kernel accepted but Node had not yet taken
 * (clients saw ECONNRESET). So, on `drain(acceptMs, idleMs)`:
 * 1. the listener keeps accepting for `acceptMs` (the app answers with `Connection: close`): a
 *    load balancer that has not yet seen /readyz turn 503 still sends here, and is served;
 * 2. then it stops accepting; a connection is closed once nothing is in progress on it, no new
 *    byte has arrived since it became quiet, and it has been quiet for `idleMs`;
 * 3. it resolves when every connection has closed.
 * A connection whose request has arrived is answered, never reset.
 * Install before listening, so every connection is seen.
 */
export function trackConnections(server: Server): { drain(acceptMs: number, idleMs?: number): Promise<void> } {
  const connections = new Map<Socket, ConnectionState>();
  server.on("connection", (socket: Socket) => {
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

  return {
    async drain(acceptMs, idleMs = acceptMs) {
      await new Promise((resolve) => setTimeout(resolve, acceptMs));
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

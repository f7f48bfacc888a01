import type { Server } from "node:http";
import net from "node:net";

/**
 * Stops accepting connections and resolves once every open connection has closed.
 *
 * http.Server#close would also close idle connections at once, including ones accepted a moment
 * ago whose request is still on the wire (their clients saw ECONNRESET). Instead, open
 * connections keep `idleMs` to bring a request, which is answered (with `Connection: close`, set
 * by the app while draining); connections still idle after that are closed.
 */
export function stopAccepting(server: Server, idleMs: number): Promise<void> {
  const closed = new Promise<void>((resolve) => net.Server.prototype.close.call(server, () => resolve()));
  let sweep: NodeJS.Timeout;
  const closeIdle = () => {
    server.closeIdleConnections();
    sweep = setTimeout(closeIdle, 100);
  };
  sweep = setTimeout(closeIdle, idleMs);
  return closed.finally(() => clearTimeout(sweep));
}

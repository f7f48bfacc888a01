import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";
import type { WebSocket, WebSocketServer } from "ws";
import type { SubscriptionsConfig } from "../../config/config";
import type { Principal, RegistrantPrincipal } from "../../domain/context";

// The connection part of the subscription server: which WebSockets are open, the upgrade gate
// (path, shutdown, origin), connections counted per account, the idle sweep and the drain. Who a
// connection is: connection-auth.ts; what it receives: subscription-delivery.ts.

/** Close codes of our own (4000–4999 is the application range; graphql-ws uses 44xx/45xx). */
export const CLOSE_CODES = {
  /** No subscription for SUBSCRIPTION_IDLE_TIMEOUT_MS. */
  idle: 4000,
  /** A subscription's queue of unsent events was full (SUBSCRIPTION_QUEUE_MAX_EVENTS). */
  slowConsumer: 4008,
  /** The account already holds SUBSCRIPTION_CONNECTIONS_PER_ACCOUNT connections on this instance. */
  tooManyConnections: 4029,
  /** The connection's credentials no longer authenticate, or the key's scope changed (graphql-ws's Forbidden: no retry). */
  credentialsChanged: 4403,
  /** The instance is shutting down (SIGTERM): reconnect, to another instance. */
  shutdown: 1012,
} as const;

/** How long a closing WebSocket may take to answer the close frame at shutdown before it is cut. */
const CLOSE_HANDSHAKE_MS = 1000;

/** One open WebSocket and what the server knows of it. */
export interface Connection {
  socket: WebSocket;
  protocol: { readonly subscriptions: Record<string, unknown> } | null;
  principal: Principal | null;
  registrant: RegistrantPrincipal | null;
  authFailure: unknown;
  /** The account it is counted under, once connection_init authenticated it. */
  accountKey: string | null;
  lastBusyAt: number;
  /** How to authenticate again (the connection params, or the session token); null before connection_init. */
  credentials: { params: (name: string) => string | undefined } | null;
  lastAuthAt: number;
  checking: boolean;
}

/** A browser's cross-origin WebSocket is allowed from CORS_ORIGINS, or from the server's own origin. */
export function originAllowed(request: IncomingMessage, corsOrigins: readonly string[]): boolean {
  const origin = request.headers.origin;
  if (origin === undefined) return true; // not a browser: nothing to protect a user from
  if (corsOrigins.includes(origin)) return true;
  try {
    return new URL(origin).host === request.headers.host;
  } catch {
    return false;
  }
}

function refuseUpgrade(socket: Duplex, status: number, text: string, message: string): void {
  socket.end(
    `HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(message)}\r\n\r\n${message}`,
  );
}

/** The server's open WebSockets: their records, their counts per account, the idle sweep, the upgrade gate and the drain. */
export class Connections {
  private readonly bySocket = new Map<WebSocket, Connection>();
  private readonly perAccount = new Map<string, number>();
  private readonly sweep: NodeJS.Timeout;
  private draining = false;

  /** `check` runs on every connection at each sweep (the credentials checked again). */
  constructor(
    private readonly wss: WebSocketServer,
    private readonly limits: SubscriptionsConfig,
    private readonly corsOrigins: readonly string[],
    check: (connection: Connection, now: number) => void,
  ) {
    wss.on("connection", (socket: WebSocket) => this.opened(socket));
    // Idle connections (no subscription for the timeout) are closed, and credentials checked
    // again, by one sweep for all of them.
    const sweepMs = Math.max(
      50,
      Math.min(5000, Math.floor(limits.idleTimeoutMs / 4), Math.floor(limits.reauthIntervalMs / 4)),
    );
    this.sweep = setInterval(() => {
      const now = Date.now();
      for (const connection of this.bySocket.values()) {
        check(connection, now);
        this.closeIfIdle(connection, now);
      }
    }, sweepMs);
    this.sweep.unref();
  }

  get size(): number {
    return this.bySocket.size;
  }

  of(socket: WebSocket): Connection | undefined {
    return this.bySocket.get(socket);
  }

  /** Counts an authenticated connection under its account; past the limit it is closed (4029) and false returned. */
  admit(connection: Connection, accountKey: string): boolean {
    const held = this.perAccount.get(accountKey) ?? 0;
    if (held >= this.limits.connectionsPerAccount) {
      connection.socket.close(
        CLOSE_CODES.tooManyConnections,
        `Too many connections for this account (limit ${this.limits.connectionsPerAccount})`,
      );
      return false;
    }
    this.perAccount.set(accountKey, held + 1);
    connection.accountKey = accountKey;
    return true;
  }

  /** Serves WebSocket upgrades of `server` at /graphql, unless shutting down or from a foreign origin. */
  attach(server: Server): void {
    server.on("upgrade", (request: IncomingMessage, socket: Duplex, head: Buffer) => {
      const path = new URL(request.url ?? "/", "http://localhost").pathname;
      if (path !== "/graphql") return refuseUpgrade(socket, 404, "Not Found", `No WebSocket at ${path}.`);
      if (this.draining) return refuseUpgrade(socket, 503, "Service Unavailable", "Shutting down: connect again.");
      if (!originAllowed(request, this.corsOrigins)) {
        return refuseUpgrade(socket, 403, "Forbidden", "Origin not allowed (CORS_ORIGINS).");
      }
      this.wss.handleUpgrade(request, socket, head, (ws) => this.wss.emit("connection", ws, request));
    });
  }

  /** Refuses new connections and closes the open ones (1012): clients reconnect elsewhere. */
  drain(): void {
    if (this.draining) return;
    this.draining = true;
    for (const socket of this.bySocket.keys()) socket.close(CLOSE_CODES.shutdown, "Server restarting: reconnect");
    // A peer that does not answer the close within a round trip or two does not hold the
    // shutdown (ws would wait 30 s for it, past SHUTDOWN_GRACE_MS).
    setTimeout(() => {
      for (const socket of this.bySocket.keys()) socket.terminate();
    }, CLOSE_HANDSHAKE_MS).unref();
  }

  /** Drains, and stops the sweep. */
  close(): void {
    this.drain();
    clearInterval(this.sweep);
  }

  private opened(socket: WebSocket): void {
    const connection: Connection = {
      socket,
      protocol: null,
      principal: null,
      registrant: null,
      authFailure: null,
      accountKey: null,
      lastBusyAt: Date.now(),
      credentials: null,
      lastAuthAt: Date.now(),
      checking: false,
    };
    this.bySocket.set(socket, connection);
    socket.once("close", () => {
      this.bySocket.delete(socket);
      if (connection.accountKey) {
        const left = (this.perAccount.get(connection.accountKey) ?? 1) - 1;
        if (left > 0) this.perAccount.set(connection.accountKey, left);
        else this.perAccount.delete(connection.accountKey);
      }
    });
  }

  private closeIfIdle(connection: Connection, now: number): void {
    const busy = connection.protocol !== null && Object.keys(connection.protocol.subscriptions).length > 0;
    if (busy) connection.lastBusyAt = now;
    else if (now - connection.lastBusyAt >= this.limits.idleTimeoutMs) {
      connection.socket.close(CLOSE_CODES.idle, `Idle: no subscription for ${this.limits.idleTimeoutMs} ms`);
    }
  }
}

import { randomUUID } from "node:crypto";
import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";
import {
  getOperationAST,
  GraphQLError,
  parse,
  specifiedRules,
  validate,
  type ExecutionArgs,
  type GraphQLSchema,
  type ValidationRule,
} from "graphql";
import { CloseCode, handleProtocols, makeServer, type ServerOptions } from "graphql-ws";
import { WebSocketServer, type WebSocket } from "ws";
import type { SubscriptionsConfig } from "../../config/config";
import { createRequestContext, domainSettingsOf, type Principal, type RegistrantPrincipal } from "../../domain/context";
import { DomainError } from "../../domain/errors";
import { authenticateCaller } from "../../http/request-authentication";
import type { AppDependencies } from "../../http/app-dependencies";
import type { Logger } from "../../http/logger";
import { maskUnexpected } from "../../http/transport-errors";
import type { LiveEventHub } from "../../runtime/live-events-hub";
import { createSubscriptionContext, type LiveConnection } from "../context";
import { presentError } from "../graphql-errors";
import { GRAPHQL_LIMITS } from "../limits";

// GraphQL subscriptions over WebSocket, graphql-ws protocol (what Apollo Client's GraphQLWsLink
// and urql's subscriptionExchange speak through the `graphql-ws` client), on the HTTP server's
// /graphql. Credentials come in connection_init's payload (connectionParams) with the names of
// the HTTP headers; a failure is answered per subscription with the code a query gets. Only
// subscriptions run here: queries and mutations keep HTTP, with its idempotency, rate limit and
// access log. Events come from the instance's LiveEventHub (src/runtime/live-events-hub.ts).
// docs/graphql-clients.md#live-updates documents the close codes and limits.

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

/** The refusal of a subscription beyond SUBSCRIPTIONS_PER_CONNECTION (extensions.code). */
export const TOO_MANY_SUBSCRIPTIONS = "TOO_MANY_SUBSCRIPTIONS";

interface Connection {
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

/** A connection param by header name, case-insensitively (as express `req.get` reads headers). */
function paramReader(params: Record<string, unknown> | undefined): (name: string) => string | undefined {
  const entries = Object.entries(params ?? {}).map(([key, value]) => [key.toLowerCase(), value] as const);
  return (name) => {
    const value = entries.find(([key]) => key === name.toLowerCase())?.[1];
    return typeof value === "string" ? value : typeof value === "number" ? String(value) : undefined;
  };
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

export interface SubscriptionServer {
  /** Serves WebSocket upgrades of `server` at /graphql. */
  attach(server: Server): void;
  /** Refuses new connections and closes the open ones (1012): clients reconnect elsewhere. */
  drain(): void;
  close(): Promise<void>;
  readonly connectionCount: number;
  readonly subscriptionCount: number;
}

export function createSubscriptionServer(
  deps: AppDependencies,
  hub: LiveEventHub,
  schema: GraphQLSchema,
  validationRules: readonly ValidationRule[],
): SubscriptionServer {
  const limits: SubscriptionsConfig = deps.config.subscriptions;
  const logger: Logger = deps.logger;
  const rules = [...specifiedRules, ...validationRules];
  const connections = new Map<WebSocket, Connection>();
  const perAccount = new Map<string, number>();
  let draining = false;

  const wss = new WebSocketServer({ noServer: true, maxPayload: limits.messageMaxBytes });
  wss.on("connection", (socket: WebSocket) => {
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
    connections.set(socket, connection);
    socket.once("close", () => {
      connections.delete(socket);
      if (connection.accountKey) {
        const left = (perAccount.get(connection.accountKey) ?? 1) - 1;
        if (left > 0) perAccount.set(connection.accountKey, left);
        else perAccount.delete(connection.accountKey);
      }
    });
  });

  /** What must not change while the connection lives: the session, or the key and its scope. */
  const identityOf = ({ principal, registrant }: Pick<Connection, "principal" | "registrant">): string =>
    registrant
      ? `registrant:${registrant.uid}:${registrant.groupId}:${registrant.cloginId}`
      : `account:${principal!.apiAccountId}:${JSON.stringify(principal!.scope ?? null)}`;
  /** The connection's identity now: a revoked key or ended session throws, as at connection_init. */
  const authenticateAgain = async (connection: Connection): Promise<string> => {
    const { params } = connection.credentials!;
    // The Timestamp sent at connection_init would be stale by now: only the key is checked again.
    const withoutTimestamp = (name: string) => (name.toLowerCase() === "timestamp" ? undefined : params(name));
    return identityOf(await authenticateCaller(deps.dataSource, withoutTimestamp));
  };

  /**
   * Subscriptions were authorized with the credentials of connection_init; a key revoked or
   * narrowed, or a session ended, since then closes the connection (4403) within the interval,
   * and a client that connects again is authorized anew.
   */
  const checkAgain = (connection: Connection, now: number): void => {
    if (connection.checking || !connection.credentials || now - connection.lastAuthAt < limits.reauthIntervalMs) return;
    if (!connection.principal && !connection.registrant) return;
    connection.checking = true;
    authenticateAgain(connection)
      .then(
        (identity) => identity === identityOf(connection),
        (error: unknown) => {
          // The database away is not the key revoked: keep the connection, check again later.
          if (!(error instanceof DomainError)) return true;
          return false;
        },
      )
      .then(
        (unchanged) => {
          connection.checking = false;
          connection.lastAuthAt = Date.now();
          if (!unchanged)
            connection.socket.close(CLOSE_CODES.credentialsChanged, "Credentials revoked or changed: connect again");
        },
        () => (connection.checking = false),
      );
  };

  // Idle connections (no subscription for the timeout) are closed, and credentials checked again,
  // by one sweep for all of them.
  const sweepMs = Math.max(
    50,
    Math.min(5000, Math.floor(limits.idleTimeoutMs / 4), Math.floor(limits.reauthIntervalMs / 4)),
  );
  const sweep = setInterval(() => {
    const now = Date.now();
    for (const connection of connections.values()) {
      checkAgain(connection, now);
      const busy = connection.protocol !== null && Object.keys(connection.protocol.subscriptions).length > 0;
      if (busy) connection.lastBusyAt = now;
      else if (now - connection.lastBusyAt >= limits.idleTimeoutMs) {
        connection.socket.close(CLOSE_CODES.idle, `Idle: no subscription for ${limits.idleTimeoutMs} ms`);
      }
    }
  }, sweepMs);
  sweep.unref();

  const refusal = (message: string, code: string) => [new GraphQLError(message, { extensions: { code } })];

  const server = serveGraphqlWs(
    wss,
    {
      schema,
      onConnect: async (ctx) => {
        const connection = connections.get(ctx.extra.socket);
        if (!connection) return false;
        connection.protocol = ctx;
        const params = paramReader(ctx.connectionParams);
        connection.credentials = { params };
        connection.lastAuthAt = Date.now();
        try {
          Object.assign(connection, await authenticateCaller(deps.dataSource, params));
        } catch (error) {
          // Kept, not thrown: each subscription is refused with the code a query would get.
          connection.authFailure = error;
          return true;
        }
        const accountKey = connection.registrant
          ? `registrant:${connection.registrant.uid}`
          : `account:${connection.principal!.apiAccountId}`;
        const held = perAccount.get(accountKey) ?? 0;
        if (held >= limits.connectionsPerAccount) {
          connection.socket.close(
            CLOSE_CODES.tooManyConnections,
            `Too many connections for this account (limit ${limits.connectionsPerAccount})`,
          );
          return false;
        }
        perAccount.set(accountKey, held + 1);
        connection.accountKey = accountKey;
        return true;
      },
      onSubscribe: (ctx, id, payload) => {
        const connection = connections.get(ctx.extra.socket);
        if (!connection) return refusal("The connection is closing.", "UNAVAILABLE");
        const requestId = randomUUID();
        if (!connection.principal && !connection.registrant) {
          const failure =
            connection.authFailure instanceof DomainError
              ? connection.authFailure
              : connection.authFailure
                ? maskUnexpected(connection.authFailure, logger, requestId)
                : new DomainError("UNAUTHENTICATED", "Authentication failed.");
          return refusal(failure.message, failure.code);
        }
        // The new id is already in the record: more than the limit means one too many.
        if (Object.keys(ctx.subscriptions).length > limits.perConnection) {
          return refusal(
            `Too many subscriptions on this connection (limit ${limits.perConnection}, SUBSCRIPTIONS_PER_CONNECTION); complete one or open another connection.`,
            TOO_MANY_SUBSCRIPTIONS,
          );
        }
        let document;
        try {
          document = parse(payload.query, { maxTokens: GRAPHQL_LIMITS.maxTokens });
        } catch (error) {
          return [error instanceof GraphQLError ? error : new GraphQLError(String(error))];
        }
        const errors = validate(schema, document, rules);
        if (errors.length > 0)
          return errors.map((error) => toGraphqlError(presentError(error, { log: logger, requestId })));
        const operation = getOperationAST(document, payload.operationName);
        if (operation && operation.operation !== "subscription") {
          return refusal(
            "Only subscriptions are served over WebSocket; send queries and mutations over HTTP (POST /graphql).",
            "BAD_REQUEST",
          );
        }
        const request = createRequestContext(deps.dataSource, requestId, connection.principal, {
          registrant: connection.registrant,
          settings: domainSettingsOf(deps.config),
        });
        const live: LiveConnection = {
          open: (filter) =>
            hub.open(filter, () =>
              connection.socket.close(
                CLOSE_CODES.slowConsumer,
                `Slow consumer: more than ${limits.queueMaxEvents} events waiting`,
              ),
            ),
        };
        const args: ExecutionArgs = {
          schema,
          document,
          operationName: payload.operationName,
          variableValues: payload.variables,
          contextValue: createSubscriptionContext(request, logger.child({ requestId }), null, live),
        };
        return args;
      },
      // Errors are presented as over HTTP: domain codes, unexpected errors masked and logged.
      onNext: (_ctx, _id, _payload, args, result) => {
        if (!result.errors?.length) return;
        const log = (args.contextValue as { log?: Logger }).log ?? logger;
        return { ...result, errors: result.errors.map((error) => presentError(error, { log, requestId: "ws" })) };
      },
      onError: (_ctx, _id, _payload, errors) =>
        errors.map((error) =>
          error.extensions?.code ? error.toJSON() : presentError(error, { log: logger, requestId: "ws" }),
        ),
    },
    logger,
  );

  return {
    get connectionCount() {
      return connections.size;
    },
    get subscriptionCount() {
      return hub.subscriberCount;
    },
    attach(httpServer) {
      httpServer.on("upgrade", (request: IncomingMessage, socket: Duplex, head: Buffer) => {
        const path = new URL(request.url ?? "/", "http://localhost").pathname;
        if (path !== "/graphql") return refuseUpgrade(socket, 404, "Not Found", `No WebSocket at ${path}.`);
        if (draining) return refuseUpgrade(socket, 503, "Service Unavailable", "Shutting down: connect again.");
        if (!originAllowed(request, deps.config.corsOrigins)) {
          return refuseUpgrade(socket, 403, "Forbidden", "Origin not allowed (CORS_ORIGINS).");
        }
        wss.handleUpgrade(request, socket, head, (ws) => wss.emit("connection", ws, request));
      });
    },
    drain() {
      if (draining) return;
      draining = true;
      for (const socket of connections.keys()) socket.close(CLOSE_CODES.shutdown, "Server restarting: reconnect");
      // A peer that does not answer the close within a round trip or two does not hold the
      // shutdown (ws would wait 30 s for it, past SHUTDOWN_GRACE_MS).
      setTimeout(() => {
        for (const socket of connections.keys()) socket.terminate();
      }, CLOSE_HANDSHAKE_MS).unref();
    },
    async close() {
      this.drain();
      clearInterval(sweep);
      await server.dispose();
    },
  };
}

/** graphql-ws's keep-alive: a ping this often; a peer without a pong by the next one is cut off. */
const KEEP_ALIVE_MS = 12_000;

/**
 * graphql-ws's protocol on a `ws` server: its own `useServer` adapter, but logging through the
 * service's logger (that adapter writes socket errors, such as an oversized message, to the
 * console) and closing on an internal error without its message.
 */
function serveGraphqlWs(
  wss: WebSocketServer,
  options: ServerOptions<Record<string, unknown>, { socket: WebSocket; request: IncomingMessage }>,
  logger: Logger,
): { dispose(): Promise<void> } {
  const protocol = makeServer(options);
  wss.options.handleProtocols = handleProtocols;
  wss.on("connection", (socket: WebSocket, request: IncomingMessage) => {
    socket.on("error", (error) => {
      logger.info({ err: error.message }, "subscription socket error; closed");
      if (socket.readyState === socket.OPEN) socket.close(CloseCode.InternalServerError, "Internal server error");
    });
    let awaitingPong = false;
    const keepAlive = setInterval(() => {
      if (awaitingPong) return socket.terminate();
      awaitingPong = true;
      socket.ping();
    }, KEEP_ALIVE_MS);
    socket.on("pong", () => (awaitingPong = false));
    const closed = protocol.opened(
      {
        protocol: socket.protocol,
        send: (data) =>
          new Promise<void>((resolve, reject) => {
            if (socket.readyState !== socket.OPEN) return resolve();
            socket.send(data, (error) => (error ? reject(error) : resolve()));
          }),
        close: (code, reason) => socket.close(code, reason),
        onMessage: (handle) =>
          socket.on("message", (data) => {
            handle(String(data)).catch((error: unknown) => {
              logger.error({ err: error }, "subscription message failed");
              socket.close(CloseCode.InternalServerError, "Internal server error");
            });
          }),
      },
      { socket, request },
    );
    socket.once("close", (code, reason) => {
      clearInterval(keepAlive);
      void closed(code, String(reason));
    });
  });
  return {
    async dispose() {
      for (const socket of wss.clients) socket.close(1001, "Going away");
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}

function toGraphqlError(formatted: { message: string; extensions?: Record<string, unknown> }): GraphQLError {
  return new GraphQLError(formatted.message, { extensions: formatted.extensions });
}

import type { IncomingMessage, Server } from "node:http";
import type { GraphQLSchema, ValidationRule } from "graphql";
import { CloseCode, handleProtocols, makeServer, type ServerOptions } from "graphql-ws";
import { WebSocketServer, type WebSocket } from "ws";
import type { AppDependencies } from "../../http/app-dependencies";
import type { Logger } from "../../http/logger";
import type { LiveEventHub } from "../../runtime/live-events-hub";
import { authenticateConnection, Reauthentication } from "./connection-auth";
import { Connections } from "./connections";
import { SubscriptionDelivery } from "./subscription-delivery";

// GraphQL subscriptions over WebSocket, graphql-ws protocol (what Apollo Client's GraphQLWsLink
// and urql's subscriptionExchange speak through the `graphql-ws` client), on the HTTP server's
// /graphql. Only subscriptions run here: queries and mutations keep HTTP, with its idempotency,
// rate limit and access log. Three parts, put together here: the connections (connections.ts:
// upgrade gate, counts per account, idle sweep, drain), who a connection is (connection-auth.ts:
// connection_init's credentials, checked again at an interval) and what it receives
// (subscription-delivery.ts: the execution of a subscribe message, reading the runtime's
// LiveEventHub, src/runtime/live-events-hub.ts). docs/graphql-clients.md#live-updates documents the
// close codes and limits.

export { CLOSE_CODES, originAllowed } from "./connections";
export { TOO_MANY_SUBSCRIPTIONS } from "./subscription-delivery";

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
  const limits = deps.config.subscriptions;
  const wss = new WebSocketServer({ noServer: true, maxPayload: limits.messageMaxBytes });
  const reauthentication = new Reauthentication(deps.state, limits.reauthIntervalMs);
  const connections = new Connections(wss, limits, deps.config.corsOrigins, (connection, now) =>
    reauthentication.check(connection, now),
  );
  const delivery = new SubscriptionDelivery(deps, hub, schema, validationRules);
  const server = serveGraphqlWs(
    wss,
    {
      schema,
      onConnect: async (ctx) => {
        const connection = connections.of(ctx.extra.socket);
        if (!connection) return false;
        connection.protocol = ctx;
        const accountKey = await authenticateConnection(deps.state, connection, ctx.connectionParams);
        // A failure is kept, not thrown: each subscription is refused with the code a query would get.
        return accountKey === null || connections.admit(connection, accountKey);
      },
      onSubscribe: (ctx, _id, payload) =>
        delivery.subscribe(connections.of(ctx.extra.socket), Object.keys(ctx.subscriptions).length, payload),
      onNext: (_ctx, _id, _payload, args, result) => delivery.presentResult(args, result),
      onError: (_ctx, _id, _payload, errors) => delivery.presentErrors(errors),
    },
    deps.logger,
  );
  return {
    get connectionCount() {
      return connections.size;
    },
    get subscriptionCount() {
      return hub.subscriberCount;
    },
    attach: (httpServer) => connections.attach(httpServer),
    drain: () => connections.drain(),
    async close() {
      connections.close();
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

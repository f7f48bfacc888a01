import { ApolloServer } from "@apollo/server";
import {
  ApolloServerPluginCacheControlDisabled,
  ApolloServerPluginLandingPageDisabled,
} from "@apollo/server/plugin/disabled";
import { expressMiddleware } from "@as-integrations/express5";
import type { ErrorRequestHandler, Express, RequestHandler, Response } from "express";
import { getOperationAST, parse, type GraphQLSchema } from "graphql";
import type { AppDependencies } from "../http/app-dependencies";
import { BODY_LIMIT, jsonBody } from "../http/body-hygiene";
import { httpStatusOfTransport } from "../http/http-status";
import { IDEMPOTENCY_KEY_HEADER, idempotentWrites, type IdempotencyKeyPolicy } from "../http/idempotency";
import { fromBodyParserError, type TransportError } from "../http/transport-errors";
import { authGatePlugin } from "./auth-gate.plugin";
import { createGraphqlContext, type GraphqlContext } from "./context";
import { credentialMutationsOf, rootFieldNamesOf } from "./credential-answers";
import { explorerRouter, wantsExplorer } from "./explorer/explorer-router";
import { errorPresentationPlugin, formatErrorWith } from "./graphql-errors";
import { armorProtection, GRAPHQL_LIMITS } from "./limits";
import { observationPlugin } from "./observation.plugin";
import { observationOf } from "../http/request-observation";
import { readSnapshotPlugin } from "./execution/read-snapshot.plugin";
import { buildGraphqlSchema } from "./schema";
import { compiledExecutorGateway } from "./execution/compiled-executor";
import { unavailablePlugin } from "./unavailable.plugin";
import type { LiveEventHub } from "../runtime/live-events-hub";
import { leanPostAnswers } from "../http/send-json";
import { createSubscriptionServer, type SubscriptionServer } from "./subscriptions/websocket-server";
import { subscriptionsOverHttpPlugin } from "./subscriptions/subscriptions-over-http.plugin";

/** A transport refusal in the GraphQL error shape, with the code and HTTP status REST uses for it. */
export function sendGraphqlTransportError(res: Response, failure: TransportError): void {
  observationOf(res).errorCode = failure.code;
  res
    .status(httpStatusOfTransport(failure.code))
    .json({ errors: [{ message: failure.message, extensions: { code: failure.code } }] });
}

// Body-parser failures on /graphql answer in the GraphQL error shape (contract §1).
const bodyErrors: ErrorRequestHandler = (error: unknown, _req, res, next) => {
  const failure = fromBodyParserError(error);
  if (!failure) return next(error);
  sendGraphqlTransportError(res, failure);
};

/**
 * Idempotency-Key applies to mutations; queries and a body Apollo will refuse ignore it (Apollo
 * answers). A mutation selecting a field whose answer holds a credential refuses it: that answer
 * may not be stored for a replay, and a retry must not silently repeat the write. The document is
 * parsed here once for the decision; Apollo parses it again for the request.
 */
function idempotencyKeyPolicyOf(body: unknown, credentialMutations: ReadonlySet<string>): IdempotencyKeyPolicy {
  const { query, operationName } = (body ?? {}) as { query?: unknown; operationName?: unknown };
  if (typeof query !== "string") return "ignored";
  try {
    const document = parse(query, { maxTokens: GRAPHQL_LIMITS.maxTokens });
    const operation = getOperationAST(document, typeof operationName === "string" ? operationName : undefined);
    if (operation?.operation !== "mutation") return "ignored";
    const holding = [...rootFieldNamesOf(document, operation)].filter((name) => credentialMutations.has(name));
    if (holding.length === 0) return "applies";
    return {
      refused: `${holding.join(", ")} cannot be sent with ${IDEMPOTENCY_KEY_HEADER}: its answer holds a secret shown only once, which is never stored for a replay. Send the mutation without the header; after a lost answer, check what the first attempt created (webhookEndpoints) before retrying.`,
    };
  } catch {
    return "ignored";
  }
}

// express.json leaves req.body unset for other content types; Apollo then answers (CSRF
// prevention, "POST body missing") instead of its "forgot the json middleware" 500.
const bodyPresent: RequestHandler = (req, _res, next) => {
  if (!("body" in req) || req.body === undefined) req.body = {};
  next();
};

/** The Apollo server of /graphql: its executor, its limits, and its plugins in the order they act. */
function createApolloServer(
  deps: AppDependencies,
  schema: GraphQLSchema,
  armor: ReturnType<typeof armorProtection>,
): ApolloServer<GraphqlContext> {
  return new ApolloServer<GraphqlContext>({
    // The schema and executor come through Apollo's gateway interface (compiled-executor.ts).
    gateway: compiledExecutorGateway(schema, {
      compiled: deps.config.graphqlCompiledExecution,
      compileOnFirstRun: deps.config.graphqlCompileOnFirstRun,
    }),
    introspection: deps.config.graphqlIntrospection,
    csrfPrevention: true,
    allowBatchedHttpRequests: false,
    includeStacktraceInErrorResponses: false,
    hideSchemaDetailsFromClientErrors: true,
    maxRecursiveSelections: true,
    stopOnTerminationSignals: false,
    parseOptions: { maxTokens: GRAPHQL_LIMITS.maxTokens },
    validationRules: armor.validationRules,
    plugins: [
      observationPlugin,
      ...armor.plugins,
      authGatePlugin,
      subscriptionsOverHttpPlugin,
      readSnapshotPlugin,
      errorPresentationPlugin,
      unavailablePlugin(deps.config.resilience.retryAfterSeconds),
      ApolloServerPluginLandingPageDisabled(),
      // No cache hints are used (answers are per caller, POST only); the default cache-control
      // plugin would otherwise make Apollo wrap every field's resolver to watch for them.
      ApolloServerPluginCacheControlDisabled(),
    ],
    formatError: formatErrorWith(deps.logger),
    logger: deps.logger,
  });
}

/**
 * Mounts POST /graphql (Apollo Server 5) and the offline explorer at /explorer; the returned
 * subscription server serves WebSocket upgrades of /graphql once attached to the HTTP server.
 */
export async function mountGraphql(
  app: Express,
  deps: AppDependencies,
  /** The runtime's live events, which subscriptions read. */
  liveEvents: LiveEventHub,
): Promise<{ subscriptions: SubscriptionServer; stop(): Promise<void> }> {
  const armor = armorProtection();
  const schema = await buildGraphqlSchema();
  const credentialMutations = credentialMutationsOf(schema);
  const server = createApolloServer(deps, schema, armor);
  await server.start();

  app.use("/explorer", explorerRouter());
  app.get("/graphql", (req, res, next) => (wantsExplorer(req) ? res.redirect(302, "/explorer") : next()));
  app.use(
    "/graphql",
    ...jsonBody({
      limit: BODY_LIMIT,
      maxDepth: deps.config.resilience.jsonMaxDepth,
      strict: true,
    }),
    bodyErrors,
    bodyPresent,
    // Before idempotentWrites, whose keeping of the answer wraps whatever res.send it finds.
    leanPostAnswers,
    idempotentWrites({
      state: deps.state,
      logger: deps.logger,
      waitTimeoutMs: deps.config.idempotencyWaitMs,
      keyPolicy: (req) => idempotencyKeyPolicyOf(req.body, credentialMutations),
      sendError: (_req, res, error) => sendGraphqlTransportError(res, error),
    }),
    expressMiddleware(server, { context: ({ req }) => createGraphqlContext(deps, req) }),
  );
  const subscriptions = createSubscriptionServer(deps, liveEvents, schema, armor.validationRules ?? []);
  return {
    subscriptions,
    async stop() {
      await subscriptions.close();
      await server.stop();
    },
  };
}

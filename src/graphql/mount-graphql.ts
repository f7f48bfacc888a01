import { ApolloServer } from "@apollo/server";
import { ApolloServerPluginLandingPageDisabled } from "@apollo/server/plugin/disabled";
import { expressMiddleware } from "@as-integrations/express5";
import type { ErrorRequestHandler, Express, RequestHandler, Response } from "express";
import { getOperationAST, parse } from "graphql";
import type { AppDependencies } from "../app";
import { DEFAULT_RESILIENCE } from "../config/config";
import { jsonBody } from "../http/body-hygiene";
import { httpStatusOfTransport } from "../http/http-status";
import { idempotentWrites } from "../http/idempotency";
import { fromBodyParserError, type TransportError } from "../http/transport-errors";
import { authGatePlugin } from "./auth-gate.plugin";
import { createGraphqlContext, type GraphqlContext } from "./context";
import { explorerRouter, wantsExplorer } from "./explorer/explorer-router";
import { errorPresentationPlugin, formatErrorWith } from "./graphql-errors";
import { armorProtection, GRAPHQL_LIMITS } from "./limits";
import { observationPlugin } from "./observation.plugin";
import { observationOf } from "../http/request-observation";
import { buildGraphqlSchema } from "./schema";
import { unavailablePlugin } from "./unavailable.plugin";

/** A transport refusal in the GraphQL error shape, with the code and HTTP status REST uses for it. */
function sendGraphqlTransportError(res: Response, failure: TransportError): void {
  observationOf(res).errorCode = failure.code;
  res
    .status(httpStatusOfTransport(failure.code))
    .json({ errors: [{ message: failure.message, extensions: { code: failure.code } }] });
}

// Body-parser failures on /graphql answer in the GraphQL error shape (contract §1).
const bodyErrors: ErrorRequestHandler = (error: unknown, _req, res, next) => {
  const failure = fromBodyParserError(error, GRAPHQL_LIMITS.bodyBytes.toUpperCase());
  if (!failure) return next(error);
  sendGraphqlTransportError(res, failure);
};

/** Idempotency-Key applies to mutations only; a body Apollo will refuse is left for Apollo to answer. */
function isMutation(body: unknown): boolean {
  const { query, operationName } = (body ?? {}) as { query?: unknown; operationName?: unknown };
  if (typeof query !== "string") return false;
  try {
    const operation = getOperationAST(
      parse(query, { maxTokens: GRAPHQL_LIMITS.maxTokens }),
      typeof operationName === "string" ? operationName : undefined,
    );
    return operation?.operation === "mutation";
  } catch {
    return false;
  }
}

// express.json leaves req.body unset for other content types; Apollo then answers (CSRF
// prevention, "POST body missing") instead of its "forgot the json middleware" 500.
const bodyPresent: RequestHandler = (req, _res, next) => {
  if (!("body" in req) || req.body === undefined) req.body = {};
  next();
};

/** Mounts POST /graphql (Apollo Server 5) and the offline explorer at /explorer. */
export async function mountGraphql(app: Express, deps: AppDependencies): Promise<{ stop(): Promise<void> }> {
  const armor = armorProtection();
  const server = new ApolloServer<GraphqlContext>({
    schema: await buildGraphqlSchema(),
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
      errorPresentationPlugin,
      unavailablePlugin,
      ApolloServerPluginLandingPageDisabled(),
    ],
    formatError: formatErrorWith(deps.logger),
    logger: deps.logger,
  });
  await server.start();

  app.use("/explorer", explorerRouter());
  app.get("/graphql", (req, res, next) => (wantsExplorer(req) ? res.redirect(302, "/explorer") : next()));
  app.use(
    "/graphql",
    ...jsonBody({
      limit: GRAPHQL_LIMITS.bodyBytes,
      maxDepth: deps.config.resilience?.jsonMaxDepth ?? DEFAULT_RESILIENCE.jsonMaxDepth,
      strict: true,
    }),
    bodyErrors,
    bodyPresent,
    idempotentWrites({
      dataSource: deps.dataSource,
      logger: deps.logger,
      waitTimeoutMs: deps.config.idempotencyWaitMs,
      appliesTo: (req) => isMutation(req.body),
      sendError: (_req, res, error) => sendGraphqlTransportError(res, error),
    }),
    expressMiddleware(server, { context: ({ req }) => createGraphqlContext(deps, req) }),
  );
  return { stop: () => server.stop() };
}

import { ApolloServer } from "@apollo/server";
import {
  ApolloServerPluginCacheControlDisabled,
  ApolloServerPluginLandingPageDisabled,
} from "@apollo/server/plugin/disabled";
import { expressMiddleware } from "@as-integrations/express5";
import type { ErrorRequestHandler, Express, RequestHandler } from "express";
import type { AppDependencies } from "../app";
import { DEFAULT_RESILIENCE } from "../config/config";
import { jsonBody } from "../http/body-hygiene";
import { httpStatusOfTransport } from "../http/http-status";
import { fromBodyParserError } from "../http/transport-errors";
import { authGatePlugin } from "./auth-gate.plugin";
import { createGraphqlContext, type GraphqlContext } from "./context";
import { explorerRouter, wantsExplorer } from "./explorer/explorer-router";
import { errorPresentationPlugin, formatErrorWith } from "./graphql-errors";
import { armorProtection, GRAPHQL_LIMITS } from "./limits";
import { observationPlugin } from "./observation.plugin";
import { observationOf } from "../http/request-observation";
import { readSnapshotPlugin } from "./read-snapshot.plugin";
import { buildGraphqlSchema } from "./schema";
import { unavailablePlugin } from "./unavailable.plugin";

// Body-parser failures on /graphql answer in the GraphQL error shape, with the codes and HTTP
// statuses REST uses for them (contract §1).
const bodyErrors: ErrorRequestHandler = (error: unknown, _req, res, next) => {
  const failure = fromBodyParserError(error, GRAPHQL_LIMITS.bodyBytes.toUpperCase());
  if (!failure) return next(error);
  observationOf(res).errorCode = failure.code;
  res
    .status(httpStatusOfTransport(failure.code))
    .json({ errors: [{ message: failure.message, extensions: { code: failure.code } }] });
};

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
      readSnapshotPlugin,
      errorPresentationPlugin,
      unavailablePlugin,
      ApolloServerPluginLandingPageDisabled(),
      // No cache hints are used (answers are per caller, POST only); the default cache-control
      // plugin would otherwise make Apollo wrap every field's resolver to watch for them.
      ApolloServerPluginCacheControlDisabled(),
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
    expressMiddleware(server, { context: ({ req }) => createGraphqlContext(deps, req) }),
  );
  return { stop: () => server.stop() };
}

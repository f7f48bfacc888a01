import compression from "compression";
import express, { type ErrorRequestHandler, type Express } from "express";
import type { Server } from "node:http";
import { mountGraphql } from "./graphql/mount-graphql";
import { accessLog } from "./http/access-log";
import { corsFor } from "./http/cors";
import { healthRouter } from "./http/health";
import { createMetrics } from "./http/metrics";
import { logTransactionReruns } from "./http/rerun-log";
import type { AppDependencies } from "./http/app-dependencies";
import { setRetryAfter } from "./http/overload";
import { consistencyHeader } from "./http/consistency";
import { sendGraphqlTransportError } from "./graphql/mount-graphql";
import { createRateLimiter } from "./http/rate-limit";
import { requestId } from "./http/request-id";
import { TransportError } from "./http/transport-errors";
import { sendLegacyError, toLegacyFailure } from "./rest/legacy-errors";
import { apiDocsRouter } from "./rest/openapi/api-docs-router";
import { LEGACY_ENDPOINTS, legacyRestRouter } from "./rest/router";
import type { DataSource } from "typeorm";
import type { Config } from "./config/config";
import type { ProcessState } from "./domain/process-state";
import type { Logger } from "./http/logger";
import { startRuntime, type Runtime } from "./runtime/runtime";

/** REST and GraphQL paths, which no page, probe or scrape route matches (whatever their letter case). */
const isApiPath = (path: string) => path.startsWith("/reg/api2/") || path === "/graphql";

export interface RegapiApp {
  app: Express;
  /** Serves GraphQL subscriptions (WebSocket upgrades of /graphql) on the server that runs `app`. */
  attach(server: Server): void;
  /** Marks the app as draining: readiness turns 503 and every answer carries `Connection: close`. */
  drain(): void;
  /** Stops in-app servers such as Apollo; call once no request is in flight. */
  stop(): Promise<void>;
}

/** The static pages, their files and the OpenAPI document: what compression() serves compressed. */
export const COMPRESSED_PATHS = ["/explorer", "/docs", "/openapi.json"];

export type { AppDependencies };

/** What the app is built from. */
export interface AppOptions {
  dataSource: DataSource;
  logger: Logger;
  /** Every setting, complete: defaults are applied once, in src/config (loadConfig, configWith). */
  config: Config;
  /** What lives for the process (src/runtime/); absent: the app starts its own, without the delivery worker. */
  runtime?: Runtime;
  /** Without a runtime: SQLite's turns and rerun counts to share with a state made earlier on the DataSource (tests). */
  shareWith?: Pick<ProcessState, "sqliteTurns" | "reruns">;
}

/** Builds the express app without listening, so tests drive it in-process with supertest. */
export async function createApp(options: AppOptions): Promise<RegapiApp> {
  let shuttingDown = false;
  const app = express();
  app.disable("x-powered-by");
  // Behind a load balancer, per-IP limits and logs need the client's address from X-Forwarded-For.
  app.set("trust proxy", options.config.trustProxy);
  const { runtime, ownRuntime } = await runtimeFor(options);
  const deps: AppDependencies = {
    dataSource: options.dataSource,
    logger: options.logger,
    config: options.config,
    state: runtime.state,
  };
  const metrics = createMetrics(deps.state);
  const stopLoggingReruns = logTransactionReruns(deps.state.reruns, deps.logger);
  const log = accessLog(deps.logger, LEGACY_ENDPOINTS, metrics);
  // What every request passes first, in one step of the middleware walk: its id, the drain's
  // Connection: close (so keep-alive clients reconnect elsewhere), then the access log.
  app.use((req, res, next) => {
    requestId(req, res, () => {
      if (shuttingDown) res.setHeader("Connection", "close");
      void log(req, res, next);
    });
  });
  const resilience = deps.config.resilience;
  setRetryAfter(app, resilience.retryAfterSeconds);
  // Cross-origin browsers (CORS_ORIGINS only): preflights are answered before routes and limits.
  const crossOrigin = corsFor(deps.config.corsOrigins);
  if (crossOrigin) app.use(["/reg/api2", "/graphql"], crossOrigin);
  // The pages' bundles (GraphiQL and Swagger UI, far larger than any answer) and the OpenAPI
  // document go compressed to clients that accept it; API answers are small and stay as they are.
  app.use(COMPRESSED_PATHS, compression());
  mountRequestGuards(app, deps, runtime);
  app.use("/reg/api2", legacyRestRouter(deps));
  const graphql = await mountGraphql(app, deps, runtime.liveEvents);
  metrics.observeSubscriptions(graphql.subscriptions);
  // After the API, whose requests then never step through them; none of their paths is an API path.
  mountPages(app, deps, metrics, () => shuttingDown);

  mountFallbacks(app, deps);

  return {
    app,
    attach: (server) => graphql.subscriptions.attach(server),
    drain() {
      shuttingDown = true;
      // WebSockets are closed at once (1012): their clients reconnect, to another instance.
      graphql.subscriptions.drain();
    },
    async stop() {
      shuttingDown = true;
      await graphql.stop();
      await ownRuntime?.stop();
      stopLoggingReruns();
    },
  };
}

/**
 * What lives for the process (src/runtime/): main and the test app start it; an app built on
 * its own starts its own (`ownRuntime`), without the delivery worker, and stops it with the app.
 */
async function runtimeFor(options: AppOptions): Promise<{ runtime: Runtime; ownRuntime: Runtime | null }> {
  if (options.runtime) return { runtime: options.runtime, ownRuntime: null };
  const ownRuntime = await startRuntime({
    dataSource: options.dataSource,
    config: options.config,
    logger: options.logger,
    deliveryWorker: false,
    shareWith: options.shareWith,
  });
  return { runtime: ownRuntime, ownRuntime };
}

/** The pages beside the API: documents, health probes and the metrics scrape. */
function mountPages(
  app: Express,
  deps: AppDependencies,
  metrics: ReturnType<typeof createMetrics>,
  isShuttingDown: () => boolean,
): void {
  // Probes and the scrape are never rate limited: the limiter is mounted on the API paths only.
  const pages = express.Router();
  pages.use(apiDocsRouter(LEGACY_ENDPOINTS));
  pages.use(healthRouter(deps.state, isShuttingDown, deps.config.resilience.readinessTimeoutMs));
  pages.use(metrics.router());
  // None of their paths can match an API request's, so those skip the walk through their routes.
  app.use((req, res, next) => (isApiPath(req.path) ? next() : pages(req, res, next)));
}

/** What every API request passes before its route: the rate limits and the read-consistency header. */
function mountRequestGuards(app: Express, deps: AppDependencies, runtime: Runtime): void {
  // Null when both limits are 0 (in-process tests, the benchmark).
  const limiter = createRateLimiter(deps.config.rateLimit, runtime.redis, deps.state, deps.logger);
  if (limiter) app.use(["/reg/api2", "/graphql"], ...limiter.handlers);
  // One step for both transports; a refusal in the shape of the one the path was mounted for.
  app.use(
    ["/reg/api2", "/graphql"],
    consistencyHeader((req, res, error) =>
      req.baseUrl.toLowerCase() === "/graphql"
        ? sendGraphqlTransportError(res, error)
        : sendLegacyError(res, error, req.requestId),
    ),
  );
}

/** Unknown paths and errors no route answered: in the legacy envelope. */
function mountFallbacks(app: Express, deps: AppDependencies): void {
  app.use((req, res) => {
    sendLegacyError(res, new TransportError("NOT_FOUND", `No route for ${req.method} ${req.path}.`), req.requestId);
  });
  const onError: ErrorRequestHandler = (error, req, res, _next) => {
    sendLegacyError(res, toLegacyFailure(error, req.log ?? deps.logger, req.requestId), req.requestId);
  };
  app.use(onError);
}

import type { Request } from "express";
import type { AppDependencies } from "../http/app-dependencies";
import {
  createRequestContext,
  domainSettingsOf,
  type Principal,
  type RegistrantPrincipal,
  type RequestContext,
} from "../domain/context";
import { authenticateCaller, requirePrincipalOf } from "../http/request-authentication";
import { observationOf, type RequestObservation } from "../http/request-observation";
import { consistencyOf } from "../http/consistency";
import type { Logger } from "../http/logger";
import type { LiveEvent, LiveEventFilter } from "../domain/events/live-events";
import { createUserLoaders, type UserLoaders } from "./loaders/user-loaders";

/** A WebSocket connection's access to live events (subscriptions only; absent over HTTP). */
export interface LiveConnection {
  open(filter: LiveEventFilter): Promise<AsyncIterableIterator<LiveEvent>>;
}

/** What every resolver gets: the domain context of this request and its own loaders. */
export interface GraphqlContext {
  requestId: string;
  log: Logger;
  /**
   * The domain context. Its principal is null only while an introspection-only operation runs;
   * the auth gate refuses every other operation before execution (see auth-gate.plugin.ts).
   */
  request: RequestContext;
  /** Why authentication failed, kept so the gate can answer with it (null when authenticated). */
  authFailure: unknown;
  loaders: UserLoaders;
  /** Where the operation and its error code are noted for the access log and metrics. */
  observation: RequestObservation;
  /** Set for an operation received over WebSocket (src/graphql/subscriptions/websocket-server.ts). */
  live?: LiveConnection;
}

/**
 * Authenticates with the same headers and code as REST. A failure does not throw here: the
 * explorer must be able to introspect before credentials are entered, so the decision is taken
 * once the operation is known.
 */
export async function createGraphqlContext(deps: AppDependencies, req: Request): Promise<GraphqlContext> {
  let principal: Principal | null = null;
  let registrant: RegistrantPrincipal | null = null;
  let authFailure: unknown = null;
  try {
    ({ principal, registrant } = await authenticateCaller(
      deps.state,
      (name) => req.get(name),
      () => requirePrincipalOf(req, deps.state),
    ));
  } catch (error) {
    authFailure = error;
  }
  const request = createRequestContext(deps.state, req.requestId, principal, {
    registrant,
    settings: domainSettingsOf(deps.config),
    consistency: consistencyOf(req),
  });
  // req.log is made on first use (access-log.ts): most operations log nothing.
  const log = () => req.log ?? deps.logger;
  return new RequestGraphqlContext(req.requestId, log, request, authFailure, observation(req));
}

/** The context of one subscription: the connection's authentication, its own request id, its live events. */
export function createSubscriptionContext(
  request: RequestContext,
  log: Logger,
  authFailure: unknown,
  live: LiveConnection,
): GraphqlContext {
  const context = new RequestGraphqlContext(request.requestId, () => log, request, authFailure, {});
  context.live = live;
  return context;
}

const observation = (req: Request): RequestObservation => (req.res ? observationOf(req.res) : {});

/**
 * `loaders` are made on first use, over the entity manager the context holds then: an operation
 * answered by its root alone (a users page) makes none of the fourteen, and a query whose read
 * snapshot replaces them (read-snapshot.plugin.ts) makes them once. `log` is taken on first use
 * too (a request's child logger costs its redaction setup). The getters sit on the prototype
 * because Apollo copies the context's own members into an object of the same prototype for each
 * operation; an own getter would be called by that copy.
 */
class RequestGraphqlContext implements GraphqlContext {
  private madeLoaders: UserLoaders | null = null;
  live?: LiveConnection;

  constructor(
    readonly requestId: string,
    private readonly logOf: () => Logger,
    public request: RequestContext,
    readonly authFailure: unknown,
    readonly observation: RequestObservation,
  ) {}

  get log(): Logger {
    return this.logOf();
  }

  get loaders(): UserLoaders {
    return (this.madeLoaders ??= createUserLoaders(this.request.em));
  }

  set loaders(replacement: UserLoaders) {
    this.madeLoaders = replacement;
  }
}

import { Router, type ErrorRequestHandler, type RequestHandler } from "express";
import type { AppDependencies } from "../http/app-dependencies";
import { createRequestContext, domainSettingsOf } from "../domain/context";
import { openLockFreeRead } from "../domain/transaction";
import { consistencyOf, sendConsistency } from "../http/consistency";
import { redeemLoginToken } from "../domain/sessions/registrant-sessions";
import { formatUtcDateTime } from "../common/dates";
import { presentUserInfo } from "./presenters/user-envelope";
import { parseCommand } from "../domain/commands/parse-command";
import { DomainError } from "../domain/errors";
import { requirePrincipalOf } from "../http/request-authentication";
import { BODY_LIMIT, jsonBody } from "../http/body-hygiene";
import { idempotentWrites } from "../http/idempotency";
import { sendJson } from "../http/send-json";
import { fromBodyParserError, TransportError } from "../http/transport-errors";
import { clientValue } from "../common/client-value";
import type { ActionTable, LegacyAction } from "./envelope/action-table";
import { commonEnvelope, envelopeWithOptionalGroup, isJsonObject } from "./envelope/envelope";
import { eventsActions } from "./events/events.actions";
import { sendLegacyError, toLegacyFailure } from "./legacy-errors";
import { productsActions } from "./products/products.actions";
import { projectsActions } from "./projects/projects.actions";
import { statusesActions } from "./statuses/statuses.actions";
import { usersActions } from "./users/users.actions";
import { accountActions } from "./account/account.actions";
import { personsActions } from "./persons/persons.actions";

/**
 * POST /reg/api2/{users,statuses,projects,products,events}/ (trailing slash optional): the legacy action envelope.
 *
 * Order of checks, each answering with the first failure: method (405) → Content-Type (415) →
 * body read and JSON parse (413, 400 INVALID_JSON) → authentication (401) → the body is an object
 * with `action` and `group_id` (400 VALIDATION_FAILED) → the action exists (400 UNKNOWN_ACTION)
 * → the action's members (400 VALIDATION_FAILED) → the action's one domain call, which checks the
 * group's owner (403) and the domain rules (400/404/409).
 */
/** The legacy endpoints and their action tables (also the bounded `action` labels of metrics). */
export const LEGACY_ENDPOINTS: Readonly<Record<string, ActionTable>> = {
  users: usersActions,
  statuses: statusesActions,
  projects: projectsActions,
  products: productsActions,
  events: eventsActions,
  account: accountActions,
  persons: personsActions,
};

export function legacyRestRouter(deps: AppDependencies): Router {
  const endpoints = LEGACY_ENDPOINTS;
  // The content type is checked before (onlyJson), so the parser reads every body it is handed;
  // not strict, so a JSON scalar reaches the envelope check and gets VALIDATION_FAILED.
  const body = jsonBody({
    limit: BODY_LIMIT,
    maxDepth: deps.config.resilience.jsonMaxDepth,
    strict: false,
    type: () => true,
  });
  const routes = new Map<string, RequestHandler[]>();
  for (const [endpoint, actions] of Object.entries(endpoints)) {
    routes.set(`/${endpoint}`, [
      onlyPost(endpoint),
      onlyJson,
      ...body,
      idempotentWrites({
        state: deps.state,
        logger: deps.logger,
        waitTimeoutMs: deps.config.idempotencyWaitMs,
        keyPolicy: (req) => (takesIdempotencyKey(actions, req.body) ? "applies" : "ignored"),
        sendError: (req, res, error) => sendLegacyError(res, error, req.requestId),
      }),
      dispatch(deps, endpoint, actions),
    ]);
  }
  routes.set("/session", [onlyPost("session"), onlyJson, ...body, redeemSession(deps)]);
  const router = Router();
  router.use(byEndpoint(routes));
  router.use(transportErrors(deps));
  return router;
}

/**
 * The handlers of the request's endpoint, found in one lookup and run in turn, as a route per
 * endpoint path would run them (any letter case, one trailing slash or none), without the walk
 * through the other endpoints' routes. A handler's failure goes to the router's error handler.
 */
function byEndpoint(routes: ReadonlyMap<string, RequestHandler[]>): RequestHandler {
  return (req, res, next) => {
    const path = req.path.length > 1 && req.path.endsWith("/") ? req.path.slice(0, -1) : req.path;
    const handlers = routes.get(path) ?? routes.get(path.toLowerCase());
    if (!handlers) return next();
    let at = 0;
    const step = (error?: unknown): void => {
      if (error !== undefined && error !== null) return next(error);
      const handler = handlers[at++];
      if (!handler) return next();
      try {
        const ran: unknown = handler(req, res, step);
        if (ran instanceof Promise) ran.catch((failure: unknown) => next(failure ?? new Error("Rejected promise")));
      } catch (failure) {
        next(failure);
      }
    };
    step();
  };
}

/**
 * A known action that changes data and whose answer may be stored: Idempotency-Key applies. A
 * malformed body, a read and an answer holding a credential ignore it.
 */
function takesIdempotencyKey(actions: ActionTable, body: unknown): boolean {
  if (!isJsonObject(body) || typeof body.action !== "string" || !Object.hasOwn(actions, body.action)) return false;
  const action = actions[body.action];
  return action.readOnly !== true && action.answerHoldsCredential !== true;
}

/** Every action of the endpoint takes group_id optionally (events): its envelope does too. */
const groupOptional = (actions: ActionTable) =>
  Object.values(actions).every((action) => action.groupIdOptional === true);

const endpointPath = (endpoint: string) => `/reg/api2/${endpoint}/`;

function onlyPost(endpoint: string): RequestHandler {
  return (req, res, next) => {
    if (req.method === "POST") return next();
    res.setHeader("Allow", "POST");
    sendLegacyError(
      res,
      new TransportError(
        "METHOD_NOT_ALLOWED",
        `Method ${req.method} is not allowed on ${endpointPath(endpoint)}; use POST.`,
      ),
      req.requestId,
    );
  };
}

const onlyJson: RequestHandler = (req, res, next) => {
  const mediaType = (req.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
  if (mediaType === "application/json") return next();
  const got = mediaType ? `Content-Type ${clientValue(mediaType)}` : "no Content-Type";
  sendLegacyError(
    res,
    new TransportError(
      "UNSUPPORTED_MEDIA_TYPE",
      `The request body must be JSON sent as Content-Type: application/json; got ${got}.`,
    ),
    req.requestId,
  );
};

function dispatch(deps: AppDependencies, endpoint: string, actions: ActionTable): RequestHandler {
  return async (req, res) => {
    let action: LegacyAction | undefined;
    try {
      const principal = await requirePrincipalOf(req, deps.state);
      const body: unknown = req.body;
      if (!isJsonObject(body)) {
        throw new DomainError(
          "VALIDATION_FAILED",
          "Invalid request: the body must be a JSON object (the action envelope with action and group_id).",
        );
      }
      const envelope = parseCommand(groupOptional(actions) ? envelopeWithOptionalGroup : commonEnvelope, body);
      action = Object.hasOwn(actions, envelope.action) ? actions[envelope.action] : undefined;
      if (!action) throw unknownAction(endpoint, envelope.action, Object.keys(actions));
      const input = parseCommand(action.schema, { ...body, group_id: envelope.group_id });
      const consistency = consistencyOf(req);
      const ctx = createRequestContext(deps.state, req.requestId, principal, {
        settings: domainSettingsOf(deps.config),
        consistency,
      });
      // A read takes no lock: with replicas it may run on one (src/db/replicas.ts).
      const read = action.readOnly ? await openLockFreeRead(ctx) : null;
      let answer: Record<string, unknown>;
      try {
        answer = await action.run(read?.ctx ?? ctx, input);
      } finally {
        await read?.close();
      }
      sendConsistency(res, consistency);
      sendJson(res, 200, answer);
    } catch (error) {
      const failure = toLegacyFailure(error, req.log ?? deps.logger, req.requestId);
      sendLegacyError(res, failure, req.requestId, action?.problemPaths);
    }
  };
}

/** Wire names of the session redemption's members. */
const SESSION_PATHS = { loginToken: "user_token" };

/**
 * POST /reg/api2/session/ `{"user_token": "…"}`: redeems a login token once for a registrant
 * session (contract §10). No API headers: the login token is the credential.
 */
function redeemSession(deps: AppDependencies): RequestHandler {
  return async (req, res) => {
    try {
      const body: unknown = req.body;
      if (!isJsonObject(body)) {
        throw new DomainError(
          "VALIDATION_FAILED",
          'Invalid request: the body must be a JSON object {"user_token": "…"}.',
        );
      }
      const consistency = consistencyOf(req);
      const ctx = createRequestContext(deps.state, req.requestId, null, {
        settings: domainSettingsOf(deps.config),
        consistency,
      });
      const outcome = await redeemLoginToken(ctx, { loginToken: body.user_token });
      sendConsistency(res, consistency);
      sendJson(res, 200, {
        success: true,
        session_token: outcome.sessionToken,
        expires_at: formatUtcDateTime(outcome.expiresAt),
        user_info: presentUserInfo(outcome.summary),
      });
    } catch (error) {
      sendLegacyError(res, toLegacyFailure(error, req.log ?? deps.logger, req.requestId), req.requestId, SESSION_PATHS);
    }
  };
}

function unknownAction(endpoint: string, name: string, valid: string[]): TransportError {
  const message = `Unknown action ${clientValue(name)}; valid actions on ${endpointPath(endpoint)}: ${valid.join(", ")}.`;
  return new TransportError("UNKNOWN_ACTION", message);
}

function transportErrors(deps: AppDependencies): ErrorRequestHandler {
  return (error, req, res, _next) => {
    const mapped = fromBodyParserError(error) ?? toLegacyFailure(error, req.log ?? deps.logger, req.requestId);
    sendLegacyError(res, mapped, req.requestId);
  };
}

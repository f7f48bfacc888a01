import { Router, type ErrorRequestHandler, type RequestHandler } from "express";
import type { AppDependencies } from "../app";
import { authenticate } from "../auth/authenticate";
import { createRequestContext } from "../domain/context";
import { DomainError, validationFailed } from "../domain/errors";
import type { ActionTable } from "./envelope/action-table";
import { commonEnvelope, isJsonObject, parseEnvelope } from "./envelope/envelope";
import { sendLegacyError, toDomainError } from "./legacy-errors";
import { DEFAULT_RESILIENCE } from "../config/config";
import { bodyRefusalOf, jsonBody } from "../http/body-hygiene";
import { projectsActions } from "./projects/projects.actions";
import { statusesActions } from "./statuses/statuses.actions";
import { usersActions } from "./users/users.actions";
import { clientValue } from "../shared/client-value";

/** Largest accepted body: 1 MiB (body-parser reads "1mb" as 1 048 576 bytes). */
export const BODY_LIMIT = "1mb";
const BODY_LIMIT_TEXT = "1 MiB (1048576 bytes)";

/**
 * Actions the legacy documentation names for an endpoint that this server does not build yet.
 * They get UNKNOWN_ACTION like any other unknown name, with a message that says so, so a client
 * can tell "not here yet" from a typo. An action table entry of the same name wins.
 */
export const LEGACY_ACTIONS_NOT_BUILT: Readonly<Record<string, readonly string[]>> = {
  users: ["create_child", "login", "get_user_list", "get_info", "add_product", "set_status"],
};

/**
 * POST /reg/api2/{users,statuses,projects}/ (trailing slash optional): the legacy action envelope.
 *
 * Order of checks, each answering with the first failure: method (405) → Content-Type (415) →
 * body read and JSON parse (413, 400 INVALID_JSON) → authentication (401) → the body is an object
 * with `action` and `group_id` (400 VALIDATION_FAILED) → the action exists (400 UNKNOWN_ACTION)
 * → the action's members (400 VALIDATION_FAILED) → the action's one domain call, which checks the
 * group's owner (403) and the domain rules (400/404/409).
 */
export function legacyRestRouter(deps: AppDependencies): Router {
  const endpoints: Record<string, ActionTable> = {
    users: usersActions,
    statuses: statusesActions,
    projects: projectsActions,
  };
  // The content type is checked before (onlyJson), so the parser reads every body it is handed;
  // not strict, so a JSON scalar reaches the envelope check and gets VALIDATION_FAILED.
  const body = jsonBody({
    limit: BODY_LIMIT,
    maxDepth: deps.config.resilience?.jsonMaxDepth ?? DEFAULT_RESILIENCE.jsonMaxDepth,
    strict: false,
    type: () => true,
  });
  const router = Router();
  for (const [endpoint, actions] of Object.entries(endpoints)) {
    router.all(`/${endpoint}`, onlyPost(endpoint), onlyJson, ...body, dispatch(deps, endpoint, actions));
  }
  router.use(transportErrors(deps));
  return router;
}

const endpointPath = (endpoint: string) => `/reg/api2/${endpoint}/`;

function onlyPost(endpoint: string): RequestHandler {
  return (req, res, next) => {
    if (req.method === "POST") return next();
    res.setHeader("Allow", "POST");
    sendLegacyError(
      res,
      new DomainError(
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
    new DomainError(
      "UNSUPPORTED_MEDIA_TYPE",
      `The request body must be JSON sent as Content-Type: application/json; got ${got}.`,
    ),
    req.requestId,
  );
};

function dispatch(deps: AppDependencies, endpoint: string, actions: ActionTable): RequestHandler {
  return async (req, res) => {
    try {
      const principal = await authenticate(deps.dataSource.manager, (name) => req.get(name));
      const body: unknown = req.body;
      if (!isJsonObject(body)) {
        throw validationFailed(
          "Invalid request: the body must be a JSON object (the action envelope with action and group_id).",
        );
      }
      const envelope = parseEnvelope(commonEnvelope, body);
      const action = Object.hasOwn(actions, envelope.action) ? actions[envelope.action] : undefined;
      if (!action) throw unknownAction(endpoint, envelope.action, Object.keys(actions));
      const input = parseEnvelope(action.schema, body);
      const ctx = createRequestContext(deps.dataSource, req.requestId, principal);
      res.status(200).json(await action.run(ctx, input));
    } catch (error) {
      sendLegacyError(res, toDomainError(error, req.log ?? deps.logger, req.requestId), req.requestId);
    }
  };
}

function unknownAction(endpoint: string, name: string, valid: string[]): DomainError {
  const validText = valid.length > 0 ? valid.join(", ") : "(none yet)";
  const message = LEGACY_ACTIONS_NOT_BUILT[endpoint]?.includes(name)
    ? `Action ${clientValue(name)} is not implemented by this server yet; valid actions on ${endpointPath(endpoint)}: ${validText}.`
    : `Unknown action ${clientValue(name)}; valid actions on ${endpointPath(endpoint)}: ${validText}.`;
  return new DomainError("UNKNOWN_ACTION", message);
}

function transportErrors(deps: AppDependencies): ErrorRequestHandler {
  return (error, req, res, _next) => {
    const refusal = bodyRefusalOf(error, BODY_LIMIT_TEXT);
    const mapped = refusal
      ? new DomainError(refusal.code, refusal.message)
      : toDomainError(error, req.log ?? deps.logger, req.requestId);
    sendLegacyError(res, mapped, req.requestId);
  };
}

import { CURSOR_EXPIRED_MESSAGE } from "../../domain/events/event-feed";
import { CONSISTENCY_INVALID_MESSAGE } from "../../http/consistency";
import { DOMAIN_ERROR_CODES, type DomainErrorCode } from "../../domain/errors";
import { RedeemLoginTokenCommand } from "../../domain/users/read-commands";
import { httpStatusOfDomain, httpStatusOfTransport } from "../../http/http-status";
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENCY_KEY_MAX_LENGTH, IDEMPOTENCY_TTL_HOURS } from "../../http/idempotency";
import { TRANSPORT_ERROR_CODES, type TransportErrorCode } from "../../http/transport-errors";
import type { ActionTable } from "../envelope/action-table";
import { actionRequestSchema, inputJsonSchema, type JsonSchema } from "./action-schema";
import { ENDPOINT_DOCS, SESSION_EXAMPLE } from "./action-docs";

// The OpenAPI 3.1 document of the legacy REST interface, generated from the router's action
// tables (`npm run openapi:emit` writes it to openapi.json; GET /openapi.json serves the same).

type ErrorCode = DomainErrorCode | TransportErrorCode;

/** One example failure per code, as the server words it. Typed by code: a new code needs one. */
const ERROR_EXAMPLES: Record<ErrorCode, { msg: string; errors?: { path: string; message: string }[] }> = {
  VALIDATION_FAILED: {
    msg: 'doc.color must be a colour of the form #RRGGBB, got "red".',
    errors: [{ path: "doc.color", message: 'must be a colour of the form #RRGGBB, got "red"' }],
  },
  UNAUTHENTICATED: {
    msg: "Authentication failed: Api-Id, Api-User and Api-Token must match an active API account.",
  },
  STALE_TIMESTAMP: {
    msg: "Timestamp must be Unix seconds (or milliseconds, 13 digits) within 300 s of the server clock.",
  },
  FORBIDDEN: { msg: "group_id 100909099 is not a project of your organization" },
  USER_NOT_FOUND: { msg: "User 102670599 is not registered in project 100909072." },
  NOT_FOUND: { msg: "No route for POST /reg/api2/nothing/." },
  CONFLICT: {
    msg: 'Status name "Accepted" is taken in this project by status_id 9 ("Accepted"); names are compared case-insensitively.',
  },
  CURSOR_EXPIRED: { msg: CURSOR_EXPIRED_MESSAGE },
  INVALID_JSON: { msg: "The request body is not valid JSON." },
  METHOD_NOT_ALLOWED: { msg: "Method GET is not allowed on /reg/api2/users/; use POST." },
  UNSUPPORTED_MEDIA_TYPE: {
    msg: 'The request body must be JSON sent as Content-Type: application/json; got Content-Type "text/plain".',
  },
  PAYLOAD_TOO_LARGE: { msg: "The request body is larger than 1 MiB (1048576 bytes)." },
  UNKNOWN_ACTION: {
    msg: 'Unknown action "delete"; valid actions on /reg/api2/statuses/: create.',
  },
  RATE_LIMITED: { msg: "Too many requests: the limit is 600 per minute for this API account; retry after 12 s." },
  INTERNAL: { msg: "Internal error; quote request id 5f0c6a1e-2b7d-4c1e-9a53-7d2f1c0e4b11 when reporting it." },
  SERVICE_UNAVAILABLE: { msg: "The database is unavailable; try again shortly." },
  IDEMPOTENCY_KEY_INVALID: {
    msg: `Idempotency-Key must be 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} printable ASCII characters without spaces.`,
  },
  IDEMPOTENCY_KEY_REUSED: {
    msg: "Idempotency-Key order-4711 was already used with a different request; send a new key for a new request.",
  },
  IDEMPOTENCY_KEY_IN_PROGRESS: {
    msg: "A request with Idempotency-Key order-4711 is still being processed; retry shortly.",
  },
  CONSISTENCY_INVALID: { msg: CONSISTENCY_INVALID_MESSAGE('"yesterday"') },
};

const ALL_CODES: ErrorCode[] = [...DOMAIN_ERROR_CODES, ...TRANSPORT_ERROR_CODES.filter((code) => code !== "NOT_FOUND")];
const statusOf = (code: ErrorCode) =>
  (DOMAIN_ERROR_CODES as readonly string[]).includes(code)
    ? httpStatusOfDomain(code as DomainErrorCode)
    : httpStatusOfTransport(code as TransportErrorCode);

const STATUS_TEXT: Record<number, string> = {
  400: "Bad request: the body, the envelope, the action or its members",
  401: "Authentication failed",
  403: "The project is not one of your organization's",
  404: "No such registration (or route)",
  405: "Only POST is served",
  409: "Conflict with stored data, or an Idempotency-Key conflict",
  410: "The event feed cursor is older than what the feed keeps: resync",
  413: "Body larger than 1 MiB",
  415: "Body not sent as application/json (UTF-8)",
  429: "Rate limited (see Retry-After)",
  500: "Unexpected error, masked; the log has the detail under the request id",
  503: "Database unavailable or saturated (see Retry-After)",
};

const LEGACY_ERROR: JsonSchema = {
  type: "object",
  description:
    "Every failure: HTTP status by error_code. `errors` lists per-member problems with their wire paths; some codes add members (a CONFLICT names the existing id).",
  properties: {
    success: { const: false },
    msg: { type: "string", description: "Built from the problems when there are any." },
    msg_type: { const: "error" },
    error_code: { type: "string", enum: ALL_CODES },
    errors: {
      type: "array",
      items: {
        type: "object",
        properties: { path: { type: "string" }, message: { type: "string" } },
        required: ["path", "message"],
      },
    },
    request_id: { type: "string", description: "Equal to the X-Request-Id response header." },
  },
  required: ["success", "msg", "msg_type", "error_code", "request_id"],
};

const LEGACY_SUCCESS: JsonSchema = {
  type: "object",
  description: "The legacy success body; which members follow `success` depends on the action (see each variant).",
  properties: { success: { const: true }, msg: { type: "string" } },
  required: ["success"],
  additionalProperties: true,
};

function errorResponses(codes: readonly ErrorCode[]): Record<string, unknown> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) byStatus.set(statusOf(code), [...(byStatus.get(statusOf(code)) ?? []), code]);
  const responses: Record<string, unknown> = {};
  for (const [status, statusCodes] of [...byStatus].sort(([a], [b]) => a - b)) {
    responses[String(status)] = {
      description: `${STATUS_TEXT[status] ?? "Error"}: ${statusCodes.join(", ")}`,
      ...(status === 429 || status === 503
        ? { headers: { "Retry-After": { schema: { type: "integer" }, description: "Seconds to wait." } } }
        : {}),
      content: {
        "application/json": {
          schema: {
            allOf: [
              { $ref: "#/components/schemas/LegacyError" },
              { properties: { error_code: { enum: statusCodes } } },
            ],
          },
          examples: Object.fromEntries(
            statusCodes.map((code) => [
              code,
              {
                summary: code,
                value: {
                  success: false,
                  msg: ERROR_EXAMPLES[code].msg,
                  msg_type: "error",
                  error_code: code,
                  ...(ERROR_EXAMPLES[code].errors ? { errors: ERROR_EXAMPLES[code].errors } : {}),
                  request_id: "5f0c6a1e-2b7d-4c1e-9a53-7d2f1c0e4b11",
                },
              },
            ]),
          ),
        },
      },
    };
  }
  return responses;
}

const pascal = (text: string) =>
  text
    .split(/[_-]/)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join("");

/** The component name of one action's request variant, e.g. `UsersAddEmailRequest`. */
export const requestSchemaName = (endpoint: string, action: string) => `${pascal(endpoint)}${pascal(action)}Request`;

const IDEMPOTENCY_PARAMETER = {
  name: IDEMPOTENCY_KEY_HEADER,
  in: "header",
  required: false,
  description: `Makes a write safe to retry: the first answer (status and body) is stored for your API account for ${IDEMPOTENCY_TTL_HOURS} hours and replayed for a repeat with the same key and the same body (compared as canonical JSON: member order and white space do not matter). The same key with another body is a 409 IDEMPOTENCY_KEY_REUSED; a repeat while the first is still running waits for its answer (409 IDEMPOTENCY_KEY_IN_PROGRESS after a timeout). Failures are replayed too, except 401, 429 and any 5xx, which are not stored. Read actions (get_user_list, get_info, get_project_list) and users login (its answer holds a token, never stored) ignore the header.`,
  schema: { type: "string", minLength: 1, maxLength: IDEMPOTENCY_KEY_MAX_LENGTH, pattern: "^[\\x21-\\x7E]+$" },
};

/** Builds the document from the endpoints' action tables (the router's LEGACY_ENDPOINTS). */
export function buildOpenApiDocument(endpoints: Readonly<Record<string, ActionTable>>, version: string) {
  const schemas: Record<string, JsonSchema> = { LegacySuccess: LEGACY_SUCCESS, LegacyError: LEGACY_ERROR };
  const paths: Record<string, unknown> = {};

  for (const [endpoint, actions] of Object.entries(endpoints)) {
    const docs = ENDPOINT_DOCS[endpoint];
    if (!docs) throw new Error(`the OpenAPI document has no description of endpoint ${endpoint}`);
    const mapping: Record<string, string> = {};
    const examples: Record<string, unknown> = {};
    const answers: string[] = [];
    for (const [name, action] of Object.entries(actions)) {
      const doc = docs.actions[name];
      if (!doc) throw new Error(`the OpenAPI document has no description of ${endpoint} ${name}`);
      const schemaName = requestSchemaName(endpoint, name);
      schemas[schemaName] = {
        title: `${endpoint} ${name}`,
        description: `${doc.summary}. Answer: ${doc.answer}.`,
        ...actionRequestSchema(name, action),
      };
      mapping[name] = `#/components/schemas/${schemaName}`;
      examples[name] = { summary: doc.summary, value: doc.example };
      answers.push(`- \`${name}\`: ${doc.summary}. Answer: ${doc.answer}.`);
    }
    paths[`/reg/api2/${endpoint}/`] = {
      post: {
        operationId: endpoint,
        tags: [endpoint],
        summary: docs.summary,
        description: `${docs.description}\n\nActions:\n\n${answers.join("\n")}`,
        parameters: [{ $ref: "#/components/parameters/Timestamp" }, { $ref: "#/components/parameters/IdempotencyKey" }],
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: {
                oneOf: Object.values(mapping).map(($ref) => ({ $ref })),
                discriminator: { propertyName: "action", mapping },
              },
              examples,
            },
          },
        },
        responses: {
          "200": {
            description: "The action's answer",
            content: { "application/json": { schema: { $ref: "#/components/schemas/LegacySuccess" } } },
          },
          ...errorResponses(ALL_CODES),
        },
      },
    };
  }

  schemas.SessionRequest = {
    title: "session",
    ...withWireName(inputJsonSchema(RedeemLoginTokenCommand), "loginToken", "user_token"),
  };
  paths["/reg/api2/session/"] = {
    post: {
      operationId: "session",
      tags: ["session"],
      summary: "Redeem a login token (from users login) once for a registrant session",
      description:
        "No API headers: the login token is the credential. The session token authenticates GraphQL's me and updateMe (Authorization: Bearer).",
      security: [],
      requestBody: {
        required: true,
        content: {
          "application/json": {
            schema: { $ref: "#/components/schemas/SessionRequest" },
            examples: { redeem: { value: SESSION_EXAMPLE } },
          },
        },
      },
      responses: {
        "200": {
          description: "success, session_token, expires_at, user_info",
          content: { "application/json": { schema: { $ref: "#/components/schemas/LegacySuccess" } } },
        },
        ...errorResponses(
          ALL_CODES.filter((code) => !["UNKNOWN_ACTION", "FORBIDDEN", "STALE_TIMESTAMP"].includes(code)),
        ),
      },
    },
  };

  return {
    openapi: "3.1.0",
    info: {
      title: "regapi legacy REST interface",
      version,
      description:
        "The legacy action envelope: POST a JSON object with `action` and `group_id` (plus the action's members) to an endpoint (events `list` takes `group_id` optionally). Authenticate with the headers Api-Id, Api-User and Api-Token. The same operations are offered by GraphQL at /graphql (explorer at /explorer).",
    },
    servers: [{ url: "/" }],
    security: [{ ApiId: [], ApiUser: [], ApiToken: [] }],
    tags: [...Object.keys(endpoints), "session"].map((name) => ({
      name,
      description: name === "session" ? "Registrant sessions" : ENDPOINT_DOCS[name].summary,
    })),
    paths,
    components: {
      securitySchemes: {
        ApiId: { type: "apiKey", in: "header", name: "Api-Id", description: "Your API account's id." },
        ApiUser: { type: "apiKey", in: "header", name: "Api-User", description: "Your API account's user name." },
        ApiToken: { type: "apiKey", in: "header", name: "Api-Token", description: "Your API account's token." },
      },
      parameters: {
        Timestamp: {
          name: "Timestamp",
          in: "header",
          required: false,
          description:
            "Optional: Unix seconds (or milliseconds); when sent it must be within 300 s of the server clock.",
          schema: { type: "string", pattern: "^\\d{10}(\\d{3})?$" },
        },
        IdempotencyKey: IDEMPOTENCY_PARAMETER,
      },
      schemas,
    },
  };
}

function withWireName(schema: JsonSchema, from: string, to: string): JsonSchema {
  const properties = Object.fromEntries(
    Object.entries(schema.properties ?? {}).map(([name, member]) => [name === from ? to : name, member]),
  );
  return {
    ...schema,
    properties,
    required: (schema.required ?? []).map((name) => (name === from ? to : name)),
  };
}

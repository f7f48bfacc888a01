import type { ApolloServerPlugin } from "@apollo/server";
import { unwrapResolverError } from "@apollo/server/errors";
import type { ValidationError } from "class-validator";
import { GraphQLError, type GraphQLFormattedError } from "graphql";
import { ArgumentValidationError, type MiddlewareFn } from "type-graphql";
import { capEchoedValues } from "../common/client-value";
import { assertUnreachable, DomainError, type DomainErrorCode } from "../domain/errors";
import { summarizeProblems, type RenderedProblem } from "../domain/problems";
import type { Logger } from "../http/logger";
import { renderProblems, type PathRendering } from "../http/problem-paths";
import { httpStatusOfDomain, httpStatusOfTransport } from "../http/http-status";
import { maskUnexpected, TransportError } from "../http/transport-errors";
import type { GraphqlContext } from "./context";
import { QueryLimitError, TOKEN_LIMIT_MESSAGE } from "./limits";
import { requestLevelCode } from "./request-level-codes";
import { RENAMED_MEMBERS } from "./inputs/renamed-members";

const CURRENT_NAME_OF = new Map<string, string>(
  Object.entries(RENAMED_MEMBERS).map(([current, old]) => [old, current]),
);

/** extensions.code of each domain code: contract §3's codes, except validation (GraphQL's BAD_USER_INPUT). */
export function graphqlCodeOf(code: DomainErrorCode): string {
  switch (code) {
    case "VALIDATION_FAILED":
      return "BAD_USER_INPUT";
    case "UNAUTHENTICATED":
    case "STALE_TIMESTAMP":
    case "FORBIDDEN":
    case "USER_NOT_FOUND":
    case "NOT_FOUND":
    case "CONFLICT":
    case "CURSOR_EXPIRED":
      return code;
    default:
      return assertUnreachable(code);
  }
}

/** A failure of the whole request (before execution): authentication, or a masked unexpected error. */
export function requestError(error: DomainError | TransportError): GraphQLError {
  const [code, status] =
    error instanceof DomainError
      ? [graphqlCodeOf(error.code), httpStatusOfDomain(error.code)]
      : [error.code, httpStatusOfTransport(error.code)];
  return new GraphQLError(error.message, { originalError: error, extensions: { code, http: { status } } });
}

const camelCase = (key: string) => key.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());

function innermost(error: GraphQLError): unknown {
  let current: unknown = unwrapResolverError(error);
  while (current instanceof GraphQLError && current.originalError) current = current.originalError;
  return current;
}

function flattenValidationErrors(errors: readonly ValidationError[], parent = ""): RenderedProblem[] {
  return errors.flatMap((error) => {
    const path = /^\d+$/.test(error.property)
      ? `${parent}[${error.property}]`
      : parent
        ? `${parent}.${error.property}`
        : error.property;
    // class-validator's messages start with the property's name ("first must not be greater
    // than 100"); the path names it already, and the summary puts the path first.
    const own = Object.values(error.constraints ?? {}).map((message) => ({
      path,
      message: message.startsWith(`${error.property} `) ? message.slice(error.property.length + 1) : message,
    }));
    return [...own, ...flattenValidationErrors(error.children ?? [], path)];
  });
}

const renderings = new WeakMap<DomainError, PathRendering>();

/**
 * Names the problems of the domain errors a resolver throws: its argument (`input`) and, where a
 * command's member has another name in the schema, that name. Without it paths stay the domain's
 * (which are the argument names of the queries).
 */
export function problemPathsOf(rendering: PathRendering): MiddlewareFn<GraphqlContext> {
  return async (_action, next) => {
    try {
      return await next();
    } catch (error) {
      if (error instanceof DomainError && !renderings.has(error)) renderings.set(error, rendering);
      throw error;
    }
  };
}

/**
 * As problemPathsOf, for a rendering that depends on the input (which spelling of a renamed
 * member was sent): the resolver wraps its domain call in it.
 */
export async function withProblemPaths<T>(rendering: PathRendering, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof DomainError && !renderings.has(error)) renderings.set(error, rendering);
    throw error;
  }
}

/** The rendering a resolver gave an error's problems, if it gave one. */
export const renderingOf = (error: DomainError): PathRendering | undefined => renderings.get(error);

/** Names an error's problems by `rendering`, unless a resolver already named them for its input. */
export function nameProblems(error: DomainError, rendering: PathRendering): void {
  if (!renderings.has(error)) renderings.set(error, rendering);
}

/** The usual rendering of a mutation: every member under its `input` argument. */
export const INPUT_PATHS: PathRendering = { prefix: "input" };

interface Reporter {
  log: Logger;
  requestId: string;
}

/**
 * The one presentation of an error to GraphQL clients. Domain errors keep their code (and their
 * member problems and extra members, camelCased); Apollo's own errors keep theirs; anything else
 * is masked, logged with the original under the request id, and never shows a stack or SQL.
 */
export function presentError(error: GraphQLError, reporter: Reporter): GraphQLFormattedError {
  const where = { locations: error.locations, path: error.path };
  const original = innermost(error);

  if (original instanceof DomainError) {
    const extensions: Record<string, unknown> = { code: graphqlCodeOf(original.code) };
    let message = original.message;
    if (original.details.problems?.length) {
      const rendered = renderProblems(original.details.problems, renderings.get(original));
      message = rendered.message;
      extensions.problems = rendered.problems;
    }
    for (const [key, value] of Object.entries(original.details.extra ?? {})) {
      const name = camelCase(key);
      extensions[name] = value;
      // A member the schema renamed is answered under both names until the old one goes.
      const current = CURRENT_NAME_OF.get(name);
      if (current) extensions[current] = value;
    }
    return { message, ...where, extensions };
  }
  if (original instanceof TransportError) {
    return { message: original.message, ...where, extensions: { code: original.code } };
  }
  if (original instanceof ArgumentValidationError) {
    // Never echo class-validator's `target`/`value`: they would repeat the input (passwords too).
    const problems = flattenValidationErrors(original.extensions.validationErrors);
    return { message: summarizeProblems(problems), ...where, extensions: { code: "BAD_USER_INPUT", problems } };
  }
  if (original instanceof QueryLimitError) {
    return { message: original.message, ...where, extensions: { ...original.extensions } };
  }
  // A GraphQLError with a code is Apollo's or graphql-js's own (parse, validation, bad request);
  // a thrown non-GraphQL error is unexpected whatever wraps it.
  const code = error.extensions?.code;
  const unexpected = original instanceof Error && !(original instanceof GraphQLError);
  if (typeof code === "string" && !unexpected) {
    if (code === "GRAPHQL_PARSE_FAILED" && TOKEN_LIMIT_MESSAGE.test(error.message)) {
      return {
        message: error.message,
        ...where,
        extensions: { ...new QueryLimitError("tokens", error.message).extensions },
      };
    }
    // graphql-js and Apollo quote the values they refuse whole; ours are capped (contract §3).
    return { message: capEchoedValues(error.message), ...where, extensions: { code } };
  }
  const requestCode = requestLevelCode(error, original, unexpected);
  if (requestCode) return { message: capEchoedValues(error.message), ...where, extensions: { code: requestCode } };
  const masked = maskUnexpected(original instanceof Error ? original : error, reporter.log, reporter.requestId);
  return { message: masked.message, ...where, extensions: { code: masked.code } };
}

const presented = new WeakMap<GraphQLError, GraphQLFormattedError>();

/** Presents errors while the request (its logger and id) is known; formatError then only looks up. */
export const errorPresentationPlugin: ApolloServerPlugin<GraphqlContext> = {
  async requestDidStart() {
    return {
      async didEncounterErrors({ errors, contextValue }) {
        for (const error of errors) presented.set(error, presentError(error, contextValue));
      },
    };
  },
};

/** Apollo's formatError: the presentation made during the request, or one made now (errors outside a request). */
export function formatErrorWith(fallbackLog: Logger) {
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    if (error instanceof GraphQLError)
      return presented.get(error) ?? presentError(error, { log: fallbackLog, requestId: "unknown" });
    return presentError(
      new GraphQLError(formatted.message, { originalError: error instanceof Error ? error : undefined }),
      {
        log: fallbackLog,
        requestId: "unknown",
      },
    );
  };
}

import type { GraphQLError } from "graphql";

const VARIABLE_ERROR_CUT_OFF = /^Too many errors processing variables/;

/**
 * The code a request-level error (one outside any field: parsing, variables, persisted queries,
 * the operation type) keeps, or null when it must be masked. Such errors are the client's: a
 * subscription sent to a schema without subscriptions, a variable that fails coercion inside a
 * scalar (`{"toString":"x"}` makes graphql-scalars throw a TypeError), the 50-errors cut-off of
 * variable coercion, a persisted-query hash that does not match its query. Apollo's
 * INTERNAL_SERVER_ERROR and anything inside a field are never trusted here.
 */
export function requestLevelCode(error: GraphQLError, original: unknown, unexpected: boolean): string | null {
  if (error.path !== undefined) return null;
  const code = error.extensions?.code;
  if (typeof code === "string") return code === "INTERNAL_SERVER_ERROR" ? null : code;
  // A bare GraphQLError of graphql-js (no code, no wrapped failure) is about the request itself;
  // graphql-js's cut-off after 50 variable errors belongs with those errors.
  if (unexpected || original !== error) return null;
  return VARIABLE_ERROR_CUT_OFF.test(error.message) ? "BAD_USER_INPUT" : "BAD_REQUEST";
}

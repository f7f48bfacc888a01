import type { Express } from "express";
import request from "supertest";
import { mapleHeaders } from "../fixtures/test-fixture";

export interface GraphqlResponse<T = Record<string, unknown>> {
  status: number;
  data: T | null | undefined;
  errors:
    | { message: string; path?: (string | number)[]; extensions?: Record<string, unknown> & { code?: string } }[]
    | undefined;
  body: Record<string, unknown>;
}

/** A POST to /graphql with the given credentials; the body is the caller's (transport tests send odd ones). */
export const postGraphql = (app: Express, headers: Record<string, string> = mapleHeaders) =>
  request(app).post("/graphql").set(headers);

/** POSTs one operation to /graphql as JSON (with the Maple Camps credentials unless told otherwise). */
export async function graphql<T = Record<string, unknown>>(
  app: Express,
  query: string,
  variables: Record<string, unknown> = {},
  headers: Record<string, string> = mapleHeaders,
): Promise<GraphqlResponse<T>> {
  const response = await postGraphql(app, headers).set("Content-Type", "application/json").send({ query, variables });
  return { status: response.status, data: response.body?.data, errors: response.body?.errors, body: response.body };
}

/** The operation's data; fails the test with the errors when there are any. */
export async function graphqlData<T = Record<string, unknown>>(
  app: Express,
  query: string,
  variables: Record<string, unknown> = {},
): Promise<T> {
  const response = await graphql<T>(app, query, variables);
  if (response.errors?.length || response.status !== 200) {
    throw new Error(`GraphQL failed (${response.status}): ${JSON.stringify(response.errors ?? response.body)}`);
  }
  return response.data as T;
}

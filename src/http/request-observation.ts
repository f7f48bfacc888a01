import type { Response } from "express";

/** What the adapters tell the access log and metrics about a request, kept in `res.locals`. */
export interface RequestObservation {
  /** The error code of a failed request (legacy body or GraphQL extensions.code). */
  errorCode?: string;
  /** GraphQL: the operation's first root field, known once the operation is resolved. */
  graphqlAction?: string;
}

export const observationOf = (res: Response): RequestObservation => res.locals as RequestObservation;

import type { MiddlewareFn } from "type-graphql";
import { echoedValue } from "../common/client-value";
import { DomainError } from "../domain/errors";
import type { Problem } from "../domain/problems";
import { renderPath, type PathRendering } from "../http/problem-paths";
import type { GraphqlContext } from "./context";
import { nameProblems, renderingOf } from "./graphql-errors";
import type { FieldProblemType, Rejected } from "./types/payloads.type";

/** The refused members, named as the error's rendering names them, each value bounded as every echo of input is. */
export function presentInputProblems(problems: readonly Problem[], rendering: PathRendering): FieldProblemType[] {
  return problems.map((problem) => ({
    field: renderPath(problem.path, rendering),
    value: problem.value === undefined ? null : echoedValue(problem.value),
    reason: problem.reason,
    message: problem.message,
  }));
}

/**
 * One error shape for a form: a mutation whose input the domain refuses (VALIDATION_FAILED with
 * member problems) answers its payload with those problems and nothing else, instead of an error
 * without data. Every other failure (FORBIDDEN, CONFLICT, …) stays an error, its problems named
 * by the same rendering. The domain call threw
 * inside its transaction, so nothing was written. `rendering` names the paths, unless the resolver
 * named them for this input (withProblemPaths).
 */
export function problemsInPayload<Payload>(
  rendering: PathRendering,
  rejected: Rejected<Payload>,
): MiddlewareFn<GraphqlContext> {
  return async (_action, next) => {
    try {
      return (await next()) as unknown;
    } catch (error) {
      if (error instanceof DomainError && error.code === "VALIDATION_FAILED" && error.details.problems?.length) {
        return rejected(presentInputProblems(error.details.problems, renderingOf(error) ?? rendering));
      }
      // The errors that stay errors (a FORBIDDEN naming emails[0].adminId) name members as the payload would.
      if (error instanceof DomainError) nameProblems(error, rendering);
      throw error;
    }
  };
}

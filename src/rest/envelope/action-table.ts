import type { z } from "zod";
import type { RequestContext } from "../../domain/context";

/**
 * One legacy action: its envelope schema (the whole JSON body, validated with zod; the handler's
 * input type is inferred from it) and a handler that makes one domain call and returns the
 * legacy success body. The router does transport checks, authentication and error mapping.
 */
export interface LegacyAction<Schema extends z.ZodType = z.ZodType> {
  schema: Schema;
  run(ctx: RequestContext, input: z.output<Schema>): Promise<Record<string, unknown>>;
}

/** The actions of one endpoint, by `action` name. */
export type ActionTable = Record<string, LegacyAction>;

/** Declares an action with its input type inferred from the schema. */
export function defineAction<Schema extends z.ZodType>(action: LegacyAction<Schema>): LegacyAction {
  return action as unknown as LegacyAction;
}

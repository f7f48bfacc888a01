import type { z } from "zod";
import type { RequestContext } from "../../domain/context";
import type { PathNames } from "../../http/problem-paths";

/**
 * One legacy action: the envelope members it reads (zod; the handler's input type is inferred
 * from it), the wire names of its domain command's members, and a handler that builds the
 * command, makes one domain call and returns the legacy success body. The router does transport
 * checks, authentication and error mapping; the domain command's schema checks every member.
 */
export interface LegacyAction<Schema extends z.ZodType = z.ZodType> {
  schema: Schema;
  /** Domain member → wire path, for the paths of problems (`emails` → `doc.email_list`). */
  problemPaths: PathNames;
  /**
   * The domain command's schema, when it has one: the generated OpenAPI document describes each
   * command member at its wire path from `problemPaths`. Actions whose commands are read member by
   * member (products, add_product's entries) list their members through `problemPaths` only.
   */
  command?: z.ZodObject;
  /** `group_id` may be left out (events `list`: absent means every project of the organization). */
  groupIdOptional?: boolean;
  /** A read: it changes nothing, so it ignores Idempotency-Key. */
  readOnly?: boolean;
  /**
   * Its answer holds a credential (users `login`'s token). Such an answer is never stored, so the
   * action ignores Idempotency-Key: a retry gets a new credential and the unused one expires.
   */
  answerHoldsCredential?: boolean;
  run(ctx: RequestContext, input: z.output<Schema>): Promise<Record<string, unknown>>;
}

/** The actions of one endpoint, by `action` name. */
export type ActionTable = Record<string, LegacyAction>;

/** Declares an action with its input type inferred from the schema. */
export function defineAction<Schema extends z.ZodType>(action: LegacyAction<Schema>): LegacyAction {
  return action as unknown as LegacyAction;
}

import { z } from "zod";
import { integerId, optionalIntegerId, toInteger } from "../../domain/commands/members";
import { parseCommand } from "../../domain/commands/parse-command";

/**
 * The members every action of every endpoint carries. Checked before the action name, so a body
 * without `action` or `group_id` is a 400 VALIDATION_FAILED naming both, whatever else it holds.
 */
export const commonEnvelope = z.object({
  action: z
    .string({ error: (issue) => (issue.input === undefined ? "is required" : "must be a string") })
    .min(1, "must not be empty"),
  group_id: integerId,
});

/** The envelope of an endpoint whose actions all take `group_id` optionally (events). */
export const envelopeWithOptionalGroup = commonEnvelope.extend({ group_id: optionalIntegerId });

export type Envelope = z.output<typeof envelopeWithOptionalGroup>;

/**
 * The envelope of a body that is a JSON object. One whose `action` is a non-empty string and whose
 * `group_id` is an id (or absent, where the endpoint takes it optionally) is read as the schema
 * would read it, with the same member parser, without running the schema; any other goes through
 * the schema, whose problems name every member that is wrong.
 */
export function parseEnvelope(body: Record<string, unknown>, groupOptional: boolean): Envelope {
  const { action, group_id: sent } = body;
  const absent = sent === undefined || sent === null;
  const groupId = absent ? null : toInteger(sent);
  if (typeof action === "string" && action !== "" && (absent ? groupOptional : groupId !== null))
    return { action, group_id: groupId };
  return parseCommand(groupOptional ? envelopeWithOptionalGroup : commonEnvelope, body);
}

export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

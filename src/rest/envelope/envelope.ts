import { z } from "zod";
import { integerId, optionalIntegerId } from "../../domain/commands/members";

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

export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
